import { Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { type Pipelined, RedisScript, RedisService, roundTrip } from '@workline/redis';
import { OversightApiEnv } from './oversight-api.env';
import { QUOTA_WINDOWS, QUOTA_WINDOWS_LUA, type QuotaWindow, quotaLimitsKey } from './task-quota';

/** The limits support set for a workstream, per window; null where the gateway's default applies. */
export type QuotaLimits = Record<QuotaWindow, number | null>;

interface StoredLimits extends QuotaLimits {
  workstreamId: string;
  version: number;
}

/** Rows copied to Redis per round trip by the sync. */
const SYNC_CHUNK = 500;

/**
 * Replaces the copy of a workstream's limits unless Redis holds a newer version already (another gateway
 * wrote a later change while this one was reading an older row).
 */
const WRITE_LIMITS = new RedisScript(
  'taskQuotaLimitsWrite',
  `
if tonumber(redis.call('HGET', KEYS[1], 'version') or '0') > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[1])
local windows = {${QUOTA_WINDOWS_LUA}}
for i = 1, #windows do
  if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[1], windows[i], ARGV[i + 1]) end
end
return 1`,
);

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
    private readonly prisma: PrismaService,
    private readonly redis: RedisService,
    private readonly env: OversightApiEnv,
  ) {}

  onApplicationBootstrap(): void {
    const sync = () => {
      this.syncing ??= this.sync()
        .catch((error: unknown) => this.logger.warn(`task quota limits not copied to Redis, next try in a while: ${errorMessage(error)}`))
        .finally(() => (this.syncing = undefined));
    };
    sync();
    this.timer = setInterval(sync, this.env.TASK_QUOTA_SYNC_SECONDS * 1000);
    this.timer.unref();
  }

  async onModuleDestroy(): Promise<void> {
    clearInterval(this.timer);
    await this.syncing;
  }

  async get(workstreamId: string): Promise<QuotaLimits> {
    const row = await this.prisma.taskQuotaLimit.findUnique({ where: { workstreamId } });
    return { day: row?.perDay ?? null, week: row?.perWeek ?? null, month: row?.perMonth ?? null };
  }

  /**
   * Stores a workstream's limits (all three: null is the default), then its copy in Redis. Durable once it
   * returns; when Redis cannot be written the sync copies it later (the quota fails open meanwhile anyway).
   */
  async set(workstreamId: string, limits: QuotaLimits): Promise<QuotaLimits> {
    const [row] = await this.prisma.$queryRaw<StoredLimits[]>`
      insert into gateway_task_quota (workstream_id, per_day, per_week, per_month)
      values (${workstreamId}, ${limits.day}::int, ${limits.week}::int, ${limits.month}::int)
      on conflict (workstream_id) do update set per_day = excluded.per_day, per_week = excluded.per_week,
        per_month = excluded.per_month, version = gateway_task_quota.version + 1, updated_at = now()
      returning workstream_id as "workstreamId", per_day as day, per_week as week, per_month as month, version`;
    await roundTrip(this.redis, this.write(row)).catch((error: unknown) =>
      this.logger.warn(`task quota limits of ${workstreamId} stored, not yet copied to Redis (the sync will): ${errorMessage(error)}`),
    );
    return { day: row.day, week: row.week, month: row.month };
  }

  /** Copies every workstream's limits to Redis (older copies only are replaced). */
  async sync(): Promise<void> {
    const rows = await this.prisma.$queryRaw<StoredLimits[]>`
      select workstream_id as "workstreamId", per_day as day, per_week as week, per_month as month, version from gateway_task_quota`;
    for (let start = 0; start < rows.length; start += SYNC_CHUNK) {
      await roundTrip(this.redis, ...rows.slice(start, start + SYNC_CHUNK).map((row) => this.write(row)));
    }
  }

  private write(row: StoredLimits): Pipelined<unknown> {
    const limit = (value: number | null) => (value === null ? '' : value);
    return WRITE_LIMITS.command(
      this.redis,
      [quotaLimitsKey(row.workstreamId), row.version, ...QUOTA_WINDOWS.map((window) => limit(row[window]))],
      (reply) => reply,
    );
  }
}
