import { IsIn, IsISO8601, IsOptional, IsString, MaxLength } from 'class-validator';

/** Workstream performance API request bodies and queries (docs/performance-api.md). */

export const PERFORMANCE_UPLOAD_KINDS = ['quality', 'throughput'] as const;
export type PerformanceUploadKind = (typeof PERFORMANCE_UPLOAD_KINDS)[number];

export class GeneratePresignedUrlDto {
  @IsIn(PERFORMANCE_UPLOAD_KINDS, { message: 'kind must be one of: quality, throughput' })
  kind!: PerformanceUploadKind;

  @IsOptional()
  @IsString()
  @MaxLength(255)
  file_name?: string;
}

export const REPORT_GROUPS = ['day', 'worker', 'use_case', 'task_definition'] as const;
export type ReportGroup = (typeof REPORT_GROUPS)[number];

export class ReportQueryDto {
  /** Inclusive lower bound (ISO 8601) on review_completed_at (quality) or task_completed_at (throughput). */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'from must be an ISO 8601 date or date-time' })
  from?: string;

  /** Exclusive upper bound. */
  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'to must be an ISO 8601 date or date-time' })
  to?: string;

  @IsOptional()
  @IsIn(REPORT_GROUPS, { message: 'group_by must be one of: day, worker, use_case, task_definition' })
  group_by?: ReportGroup;

  @IsOptional()
  @IsIn(['json', 'csv'], { message: 'format must be one of: json, csv' })
  format?: 'json' | 'csv';
}
