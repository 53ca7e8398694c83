import { Type } from 'class-transformer';
import { IsArray, IsIn, IsInt, IsISO8601, IsNumber, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
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

/**
 * A stored quality review record as events carry it (the task_reviewed fields, dates in UTC ISO 8601). Its
 * three maps have value shapes class-validator cannot state: each spells its JSON Schema once, here.
 */
export class QualityReviewRecordData {
  @IsString() use_case_id!: string;
  @IsString() task_definition_id!: string;
  @IsOptional() @IsString() dataset_id!: string | null;
  @IsOptional() @IsString() asset_id!: string | null;
  @IsOptional() @IsString() task_id!: string | null;
  @IsOptional() @IsString() unique_id!: string | null;
  @IsOptional() @IsString() task_url!: string | null;
  @IsOptional() @IsISO8601() task_completed_at!: string | null;
  @IsString() worker_id!: string;
  @IsISO8601() review_completed_at!: string;
  @IsOptional() @IsNumber() review_duration!: number | null;
  @IsOptional() @IsString() reviewed_by!: string | null;
  @IsNumber() review_score!: number;
  @IsOptional() @IsString() review_explanation!: string | null;
  @IsObject() @JSONSchema({ additionalProperties: { type: 'number' } }) errors!: Record<string, number>;
  @IsOptional() @IsString() review_type!: string | null;
  @IsOptional() @IsInt() task_review_count!: number | null;
  @IsOptional() @IsInt() subtask_review_count!: number | null;
  @IsOptional() @IsObject() @JSONSchema({ additionalProperties: { type: 'string' } }) review_metadata!: Record<string, string> | null;
  @IsOptional()
  @IsObject()
  @JSONSchema({ additionalProperties: { type: ['string', 'number', 'boolean'] } })
  review_measurements!: Record<string, string | number | boolean> | null;
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
  @IsObject() @ValidateNested() @Type(() => QualityReviewRecordData) record!: QualityReviewRecordData;
}
