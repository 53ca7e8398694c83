import { Injectable, Logger } from '@nestjs/common';
import { RedisScript, RedisService } from '@workline/redis';
import { OversightApiEnv } from './oversight-api.env';

export type QuotaWindow = 'day' | 'week' | 'month';

export interface QuotaRefusal {
  window: QuotaWindow;
  limit: number;
  resetsAt: Date;
}

const DAY_MS = 24 * 3600 * 1000;
const WINDOWS: QuotaWindow[] = ['day', 'week', 'month'];
const WINDOWS_COUNT = WINDOWS.length;
const logger = new Logger('TaskQuota');
const NOTHING_TO_RELEASE = { release: async () => undefined };

/** The UTC calendar window containing `now`: its id (part of the Redis key) and when it ends. */
export function quotaWindow(window: QuotaWindow, now: Date): { id: string; endsAt: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (window === 'day') return { id: `d${now.toISOString().slice(0, 10)}`, endsAt: new Date(Date.UTC(y, m, d + 1)) };
  if (window === 'month') return { id: `m${now.toISOString().slice(0, 7)}`, endsAt: new Date(Date.UTC(y, m + 1, 1)) };
  // ISO weeks start on Monday.
  const monday = new Date(Date.UTC(y, m, d) - ((now.getUTCDay() + 6) % 7) * DAY_MS);
  return { id: `w${monday.toISOString().slice(0, 10)}`, endsAt: new Date(monday.getTime() + 7 * DAY_MS) };
}

/** Checks every window, and counts in all of them only when none is full (atomic in Redis). */
const RESERVE = new RedisScript(
  'taskQuotaReserve',
  `
for i = 1, #KEYS do
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= tonumber(ARGV[2 * i - 1]) then return i end
end
for i = 1, #KEYS do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[2 * i])
end
return 0`,
  WINDOWS_COUNT,
);

/**
 * Task-creation quota per workstream (spec "Limits": per day, week or month). A creation is counted
 * before it is attempted and given back when it fails, so refused requests never use up the quota.
 * Like the rate limits, it fails open: when Redis cannot answer, the creation is allowed and not counted
 * (docs/decisions.md, "Redis outages").
 */
@Injectable()
export class TaskQuota {
  constructor(
    private readonly redis: RedisService,
    private readonly env: OversightApiEnv,
  ) {}

  private limitOf(window: QuotaWindow): number {
    return { day: this.env.TASK_QUOTA_PER_DAY, week: this.env.TASK_QUOTA_PER_WEEK, month: this.env.TASK_QUOTA_PER_MONTH }[window];
  }

  /** Counts one creation; returns the refusal when a window is full, else a function that gives it back. */
  async reserve(workstreamId: string, now = new Date()): Promise<{ refused: QuotaRefusal } | { release: () => Promise<void> }> {
    const windows = WINDOWS.map((window) => ({ window, ...quotaWindow(window, now) }));
    const keys = windows.map((w) => `quota:tasks:${workstreamId}:${w.id}`);
    const args = windows.flatMap((w) => [this.limitOf(w.window), Math.ceil((w.endsAt.getTime() - now.getTime()) / 1000) + 3600]);
    let full: number;
    try {
      full = await RESERVE.run(this.redis, [...keys, ...args], Number);
    } catch (error) {
      logger.warn(
        `task quota not checked (Redis cannot answer: ${error instanceof Error ? error.message : String(error)}): creation allowed`,
      );
      return NOTHING_TO_RELEASE;
    }
    if (full > 0) {
      const { window, endsAt } = windows[full - 1];
      return { refused: { window, limit: this.limitOf(window), resetsAt: endsAt } };
    }
    return {
      release: async () => {
        // Without Redis the creation stays counted until its window ends: a refund lost, never a quota exceeded.
        if (this.redis.status !== 'ready') return;
        await Promise.all(keys.map((key) => this.redis.decr(key))).catch(() => undefined);
      },
    };
  }
}
