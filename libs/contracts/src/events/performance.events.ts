import { Type } from 'class-transformer';
import { IsArray, IsIn, IsISO8601, IsNumber, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { UseCaseDto } from '../http/admin.dto';

/** Topic.WorkstreamCreated: a workstream exists; services that keep per-workstream state may prepare. */
export class WorkstreamCreatedEvent {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UseCaseDto) use_cases!: UseCaseDto[];
  @IsISO8601() created_at!: string;
}

/** Why a quality record went to quality control. */
export const QC_REASONS = ['below_threshold', 'sampled'] as const;
export type QcReason = (typeof QC_REASONS)[number];

/** A stored quality review record as events carry it (the task_reviewed fields, dates in UTC ISO 8601). */
export interface QualityReviewRecordData {
  use_case_id: string;
  task_definition_id: string;
  dataset_id: string | null;
  asset_id: string | null;
  task_id: string | null;
  unique_id: string | null;
  task_url: string | null;
  task_completed_at: string | null;
  worker_id: string;
  review_completed_at: string;
  review_duration: number | null;
  reviewed_by: string | null;
  review_score: number;
  review_explanation: string | null;
  errors: Record<string, number>;
  review_type: string | null;
  task_review_count: number | null;
  subtask_review_count: number | null;
  review_metadata: Record<string, string> | null;
  review_measurements: Record<string, string | number | boolean> | null;
}

/**
 * Topic.QualityReviewForQc (key: workstream id): a quality record stored or replaced that QC should look
 * at, because it scored below the workstream's threshold or was drawn in the random sample.
 */
export class QualityReviewForQcEvent {
  @IsString() record_id!: string;
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsIn(QC_REASONS) reason!: QcReason;
  @IsNumber() qc_score_threshold!: number;
  @IsNumber() qc_sample_rate!: number;
  /** stored: a new record; replaced: a repeat of a unique_id replaced the earlier attributes. */
  @IsIn(['stored', 'replaced']) outcome!: 'stored' | 'replaced';
  /** Set when the record came from a CSV upload. */
  @IsOptional() @IsString() upload_id!: string | null;
  @IsObject() record!: QualityReviewRecordData;
}
