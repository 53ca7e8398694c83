import { Injectable } from '@nestjs/common';
import type { QualityReportGroup, ReportGroup, ThroughputReportGroup } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import type { PerformanceKind } from './record-rules';

/** The column each report is filtered on, and the SQL of each grouping (a fixed list: never user text). */
const TIME_COLUMN: Record<PerformanceKind, string> = { quality: 'review_completed_at', throughput: 'task_completed_at' };
const groupExpression = (kind: PerformanceKind, group: ReportGroup | undefined): string => {
  switch (group) {
    case 'day':
      return `to_char(${TIME_COLUMN[kind]} at time zone 'UTC', 'YYYY-MM-DD')`;
    case 'worker':
      return 'worker_id';
    case 'use_case':
      return `nullif(use_case_id, '')`;
    case 'task_definition':
      return `nullif(task_definition_id, '')`;
    default:
      return 'null::text';
  }
};

/**
 * The report queries, aggregated in PostgreSQL (GROUP BY, percentile_cont, jsonb_each): one group per key of
 * the grouping, records from `from` (inclusive) to `to` (exclusive), either bound null for none.
 */
@Injectable()
export class ReportsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async quality(
    workstreamId: string,
    group: ReportGroup | undefined,
    from: string | null,
    to: string | null,
  ): Promise<QualityReportGroup[]> {
    const filtered = `select ${groupExpression('quality', group)} as key, review_score, errors from performance_quality_record
      where workstream_id = $1 and ($2::timestamptz is null or review_completed_at >= $2::timestamptz)
        and ($3::timestamptz is null or review_completed_at < $3::timestamptz)`;
    const rows = await this.prisma.$queryRawUnsafe<Omit<QualityReportGroup, 'errors'>[]>(
      `with r as (${filtered})
       select key, count(*)::int as count, avg(review_score) as mean_score,
         percentile_cont(0.5) within group (order by review_score) as p50_score,
         percentile_cont(0.9) within group (order by review_score) as p90_score,
         min(review_score) as min_score, max(review_score) as max_score
       from r group by key order by key nulls first`,
      workstreamId,
      from,
      to,
    );
    const errorRows = await this.prisma.$queryRawUnsafe<{ key: string | null; type: string; total: number }[]>(
      `with r as (${filtered})
       select r.key, e.key as type, sum(e.value::bigint)::float8 as total from r cross join lateral jsonb_each_text(r.errors) e
       group by r.key, e.key order by e.key`,
      workstreamId,
      from,
      to,
    );
    return rows.map((row) => ({
      ...row,
      errors: Object.fromEntries(errorRows.filter((e) => e.key === row.key).map((e) => [e.type, Number(e.total)])),
    }));
  }

  async throughput(
    workstreamId: string,
    group: ReportGroup | undefined,
    from: string | null,
    to: string | null,
  ): Promise<ThroughputReportGroup[]> {
    return this.prisma.$queryRawUnsafe<ThroughputReportGroup[]>(
      `select ${groupExpression('throughput', group)} as key, count(*)::int as records,
         sum(task_count)::float8 as tasks, coalesce(sum(subtask_count), 0)::float8 as subtasks,
         coalesce(sum(duration_seconds), 0)::float8 as duration_seconds,
         avg(duration_seconds) as mean_duration_seconds,
         sum(task_count) filter (where duration_seconds > 0)::float8
           / nullif(sum(duration_seconds) filter (where duration_seconds > 0) / 3600.0, 0) as tasks_per_hour
       from performance_throughput_record
       where workstream_id = $1 and ($2::timestamptz is null or task_completed_at >= $2::timestamptz)
         and ($3::timestamptz is null or task_completed_at < $3::timestamptz)
       group by 1 order by 1 nulls first`,
      workstreamId,
      from,
      to,
    );
  }
}
