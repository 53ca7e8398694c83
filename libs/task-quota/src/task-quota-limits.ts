import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import type { PublicSurface } from '@workline/db';
import type { Pipelined } from '@workline/redis';
import { QUOTA_WINDOWS, quotaLimitsKey } from './quota-windows';
import { TaskQuotaCounters } from './task-quota-counters';
import { type QuotaLimits, type StoredLimits, type TaskQuotaLimitRows, TaskQuotaLimitsRepository } from './task-quota-limits.repository';
import { TASK_QUOTA_POLICY, type TaskQuotaPolicy } from './task-quota.policy';

export type { QuotaLimits } from './task-quota-limits.repository';

/** Rows copied to Redis per round trip by the sync. */
const SYNC_CHUNK = 500;

/**
 * The task-creation limits support sets per workstream (docs/oversight-api.md, "Quota"). PostgreSQL holds
 * them (gateway_task_quota); the quota is counted in Redis, whose reserve script reads a copy of them in
 * the same call, so a change costs a request nothing and holds on every gateway once `set` has answered.
 * Redis may lose its copies (a restart, a flush): every gateway writes all of them again at start and every
 * TASK_QUOTA_SYNC_SECONDS. Until then a workstream is held to the defaults, whose counters were lost too.
 */
@Injectable()
export class TaskQuotaLimits implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger('TaskQuotaLimits');
  private timer?: NodeJS.Timeout;
  private syncing?: Promise<void>;

  constructor(
    @Inject(TaskQuotaLimitsRepository) private readonly repository: TaskQuotaLimitRows,
    @Inject(TaskQuotaCounters) private readonly counters: PublicSurface<TaskQuotaCounters>,
    @Inject(TASK_QUOTA_POLICY) private readonly policy: TaskQuotaPolicy,
  ) {}

  onApplicationBootstrap(): void {
    const sync = () => {
      this.syncing ??= this.sync()
        .catch((error: unknown) => this.logger.warn(`task quota limits not copied to Redis, next try in a while: ${errorMessage(error)}`))
        .finally(() => (this.syncing = undefined));
    };
    sync();
    this.timer = setInterval(sync, this.policy.syncSeconds * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.syncing;
  }

  async get(workstreamId: string): Promise<QuotaLimits> {
    return (await this.repository.find(workstreamId)) ?? { day: null, week: null, month: null };
  }

  /**
   * Stores a workstream's limits (all three: null is the default), then its copy in Redis. Durable once it
   * returns; when Redis cannot be written the sync copies it later (the quota fails open meanwhile anyway).
   */
  async set(workstreamId: string, limits: QuotaLimits): Promise<QuotaLimits> {
    const row = await this.repository.store(workstreamId, limits);
    await this.counters
      .send(this.write(row))
      .catch((error: unknown) =>
        this.logger.warn(`task quota limits of ${workstreamId} stored, not yet copied to Redis (the sync will): ${errorMessage(error)}`),
      );
    return { day: row.day, week: row.week, month: row.month };
  }

  /** Copies every workstream's limits to Redis (older copies only are replaced). */
  async sync(): Promise<void> {
    const rows = await this.repository.all();
    for (let start = 0; start < rows.length; start += SYNC_CHUNK) {
      await this.counters.send(...rows.slice(start, start + SYNC_CHUNK).map((row) => this.write(row)));
    }
  }

  private write(row: StoredLimits): Pipelined<unknown> {
    return this.counters.writeLimits(
      quotaLimitsKey(row.workstreamId),
      row.version,
      QUOTA_WINDOWS.map((window) => row[window]),
    );
  }
}
