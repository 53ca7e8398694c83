import { Injectable } from '@nestjs/common';
import { PrismaService, type PublicSurface } from '@workline/db';
import type { QuotaWindow } from './quota-windows';

/** The limits support set for a workstream, per window; null where the gateway's default applies. */
export type QuotaLimits = Record<QuotaWindow, number | null>;

/** A workstream's limits as stored (gateway_task_quota), with the version that orders their copies in Redis. */
export interface StoredLimits extends QuotaLimits {
  workstreamId: string;
  version: number;
}

/** gateway_task_quota: the task-creation limits support set, one row per workstream (prisma/schema/quota.prisma). */
@Injectable()
export class TaskQuotaLimitsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async find(workstreamId: string): Promise<QuotaLimits | undefined> {
    const row = await this.prisma.taskQuotaLimit.findUnique({ where: { workstreamId } });
    return row ? { day: row.perDay, week: row.perWeek, month: row.perMonth } : undefined;
  }

  /** Stores all three limits of a workstream, a version above the one it replaces. */
  async store(workstreamId: string, limits: QuotaLimits): Promise<StoredLimits> {
    const [row] = await this.prisma.$queryRaw<StoredLimits[]>`
      insert into gateway_task_quota (workstream_id, per_day, per_week, per_month)
      values (${workstreamId}, ${limits.day}::int, ${limits.week}::int, ${limits.month}::int)
      on conflict (workstream_id) do update set per_day = excluded.per_day, per_week = excluded.per_week,
        per_month = excluded.per_month, version = gateway_task_quota.version + 1, updated_at = now()
      returning workstream_id as "workstreamId", per_day as day, per_week as week, per_month as month, version`;
    return row;
  }

  async all(): Promise<StoredLimits[]> {
    return this.prisma.$queryRaw<StoredLimits[]>`
      select workstream_id as "workstreamId", per_day as day, per_week as week, per_month as month, version from gateway_task_quota`;
  }
}

export type TaskQuotaLimitRows = PublicSurface<TaskQuotaLimitsRepository>;
