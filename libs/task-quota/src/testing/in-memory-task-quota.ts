import type { PublicSurface } from '@workline/db';
import { inMemoryCommand, type InMemoryRoundTrip } from '@workline/testing';
import { QUOTA_WINDOWS, type QuotaWindow } from '../quota-windows';
import type { CountedWindow, TaskQuotaCounters } from '../task-quota-counters';
import type { QuotaLimits, StoredLimits, TaskQuotaLimitRows } from '../task-quota-limits.repository';

/**
 * The quota's counters and limit copies in memory, as TaskQuotaCounters' scripts keep them in Redis (the
 * integration suites prove the scripts). While the round trip is down, every call rejects.
 */
export class InMemoryTaskQuotaCounters implements PublicSurface<TaskQuotaCounters> {
  /** Each window's count, by its key. */
  readonly byKey = new Map<string, number>();
  /** How long each count is kept, as last set. */
  readonly ttls = new Map<string, number>();
  readonly limitCopies = new Map<string, { version: number } & Partial<Record<QuotaWindow, number>>>();

  constructor(private readonly redis: InMemoryRoundTrip) {}

  reserve(windows: CountedWindow[], limitsKey: string) {
    return inMemoryCommand(() => {
      const custom = this.limitCopies.get(limitsKey);
      for (const [i, window] of windows.entries()) {
        const limit = custom?.[QUOTA_WINDOWS[i]] ?? window.defaultLimit;
        if ((this.byKey.get(window.counterKey) ?? 0) >= limit) return { full: i + 1, limit };
      }
      for (const window of windows) {
        this.byKey.set(window.counterKey, (this.byKey.get(window.counterKey) ?? 0) + 1);
        this.ttls.set(window.counterKey, window.ttlSeconds);
      }
      return { full: 0, limit: 0 };
    });
  }

  async giveBack(counterKeys: string[]): Promise<void> {
    this.redis.check();
    for (const key of counterKeys) this.byKey.set(key, (this.byKey.get(key) ?? 0) - 1);
  }

  async counts(counterKeys: string[]): Promise<number[]> {
    this.redis.check();
    return counterKeys.map((key) => this.byKey.get(key) ?? 0);
  }

  writeLimits(limitsKey: string, version: number, limits: (number | null)[]) {
    return inMemoryCommand(() => {
      if ((this.limitCopies.get(limitsKey)?.version ?? 0) > version) return 0;
      const copy: { version: number } & Partial<Record<QuotaWindow, number>> = { version };
      QUOTA_WINDOWS.forEach((window, i) => {
        if (limits[i] !== null) copy[window] = limits[i];
      });
      this.limitCopies.set(limitsKey, copy);
      return 1;
    });
  }

  send(...commands: Parameters<InMemoryRoundTrip['send']>) {
    return this.redis.send(...commands);
  }
}

/** gateway_task_quota in memory: a row per workstream, its version one up at each change. */
export class InMemoryTaskQuotaLimitRows implements TaskQuotaLimitRows {
  readonly rows = new Map<string, StoredLimits>();

  async find(workstreamId: string): Promise<QuotaLimits | undefined> {
    const row = this.rows.get(workstreamId);
    return row && { day: row.day, week: row.week, month: row.month };
  }

  async store(workstreamId: string, limits: QuotaLimits): Promise<StoredLimits> {
    const row = { workstreamId, ...limits, version: (this.rows.get(workstreamId)?.version ?? 0) + 1 };
    this.rows.set(workstreamId, row);
    return row;
  }

  async all(): Promise<StoredLimits[]> {
    return [...this.rows.values()];
  }
}
