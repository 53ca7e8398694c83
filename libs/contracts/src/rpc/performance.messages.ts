import { Type } from 'class-transformer';
import { Allow, IsIn, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
import { PERFORMANCE_UPLOAD_KINDS, type PerformanceUploadKind, ReportQueryDto } from '../http/performance.dto';

/** Request-reply payloads of the workstream performance API (gateway → performance). */

/** Who calls: the x-api-key's account, and its workstream (null for a project-level key of the account). */
export class PerformanceCaller {
  @IsString() account_id!: string;
  @IsOptional() @IsString() workstream_id!: string | null;
}

export class PerformanceRecordSubmitRequest {
  @ValidateNested() @Type(() => PerformanceCaller) caller!: PerformanceCaller;
  @IsString() workstream_id!: string;
  /** The JSON body as received; performance checks it (record-rules), so CSV rows get the same rules. */
  @Allow() body!: unknown;
}

export interface PerformanceRecordReply {
  message: string;
  outcome: 'stored' | 'replaced' | 'ignored';
}

export class PerformanceUploadCreateRequest {
  @ValidateNested() @Type(() => PerformanceCaller) caller!: PerformanceCaller;
  @IsString() workstream_id!: string;
  @IsIn(PERFORMANCE_UPLOAD_KINDS) kind!: PerformanceUploadKind;
  @IsOptional() @IsString() file_name?: string;
  @IsInt() @Min(1) expires_in_seconds!: number;
}

export class PerformanceUploadCheckOpenRequest {
  @IsString() upload_id!: string;
}

/**
 * Blob-store folder of an upload's files: the gateway writes each PUT's file under it (a random name, so
 * concurrent PUTs never overwrite each other's), and the performance service deletes the whole folder
 * when the upload is over or its URL expired unused.
 */
export const performanceUploadFolder = (uploadId: string) => `performance-uploads/${uploadId}/`;

export class PerformanceUploadReceivedRequest {
  @IsString() upload_id!: string;
  @IsString() blob_key!: string;
  @IsInt() @Min(0) bytes!: number;
}

export class PerformanceUploadGetRequest {
  @ValidateNested() @Type(() => PerformanceCaller) caller!: PerformanceCaller;
  @IsString() workstream_id!: string;
  @IsString() upload_id!: string;
}

export interface PerformanceUploadRejectionView {
  /** Row number in the file: the header is row 1, the first data row is row 2. */
  row: number;
  errors: { field: string; message: string }[];
}

export type PerformanceUploadState = 'awaiting_upload' | 'expired' | 'queued' | 'processing' | 'completed' | 'failed';

export interface PerformanceUploadView {
  upload_id: string;
  workstream_id: string;
  kind: PerformanceUploadKind;
  file_name: string | null;
  state: PerformanceUploadState;
  expires_at: string;
  created_at: string;
  received_at: string | null;
  started_at: string | null;
  finished_at: string | null;
  bytes: number | null;
  rows_processed: number;
  rows_accepted: number;
  rows_stored: number;
  rows_replaced: number;
  rows_duplicates_ignored: number;
  rows_rejected: number;
  rejections: PerformanceUploadRejectionView[];
  rejections_truncated: boolean;
  failure: string | null;
}

export class PerformanceReportRequest {
  @ValidateNested() @Type(() => PerformanceCaller) caller!: PerformanceCaller;
  @IsString() workstream_id!: string;
  @ValidateNested() @Type(() => ReportQueryDto) query!: ReportQueryDto;
}

export interface QualityReportGroup {
  /** The group's value (a day YYYY-MM-DD, a worker, a use case, a task definition); null without group_by. */
  key: string | null;
  count: number;
  mean_score: number;
  p50_score: number;
  p90_score: number;
  min_score: number;
  max_score: number;
  /** Error type → total occurrences. */
  errors: Record<string, number>;
}

export interface ThroughputReportGroup {
  key: string | null;
  records: number;
  tasks: number;
  subtasks: number;
  /** Sum of duration_seconds of the records that have one. */
  duration_seconds: number;
  mean_duration_seconds: number | null;
  /** tasks of the records with a duration / their hours of work; null when none has a duration. */
  tasks_per_hour: number | null;
}

export interface PerformanceReport<G> {
  workstream_id: string;
  kind: 'quality' | 'throughput';
  from: string | null;
  to: string | null;
  group_by: string | null;
  groups: G[];
}

/** format=csv: the report as CSV text, for the gateway to send as it is. */
export interface PerformanceReportCsv {
  csv: string;
  file_name: string;
}
