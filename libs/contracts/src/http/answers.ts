import { Type } from 'class-transformer';
import {
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsISO8601,
  IsNumber,
  IsObject,
  IsOptional,
  IsString,
  Min,
  ValidateNested,
} from 'class-validator';
import { JSONSchema } from 'class-validator-jsonschema';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../rpc/delivery.messages';
import { BUCKET_DRIVERS, type BucketDriver, TASK_STATES, type TaskState } from './oversight.dto';
import { PERFORMANCE_UPLOAD_KINDS, type PerformanceUploadKind } from './performance.dto';
import { UseCaseDto } from './admin.dto';
import { RUN_STATUSES, type RunStatusValue } from './platform.dto';
import type { PlatformApi } from '../rpc/platform.messages';
import { SCHEMA_REF_PREFIX } from '../asyncapi/json-schema';

/**
 * What the HTTP API answers, as classes: their class-validator decorators are the JSON Schemas of the
 * OpenAPI document (docs/openapi.json, the same derivation as the AsyncAPI payloads), so the typed client
 * (libs/client) and the response-validation test read the shapes from here. IsOptional means "may be absent
 * or null". `additionalProperties` is left open: a new field is not a breaking change for clients.
 */

const JSON_OBJECT = { type: 'object', additionalProperties: true } as const;

// ---- errors, one shape per API group (apps/gateway/src/http/problem.ts) ----

export class FieldErrorAnswer {
  @IsString() field!: string;
  @IsString() message!: string;
}

/** v1 (quality, oversight, deliveries), work, admin and the rest: the 422s name each field in `errors`. */
export class ErrorAnswer {
  @IsString() message!: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => FieldErrorAnswer) errors?: FieldErrorAnswer[];
  /** Only on a 500: the id under which the error was logged. */
  @IsOptional() @IsString() error_id?: string;
}

/** Platform API v4: `{message}` (the spec's fixed texts for 400, 401, 403, 404). */
export class V4ErrorAnswer {
  @IsString() message!: string;
  /** Only on a 500: the id under which the error was logged. */
  @IsOptional() @IsString() error_id?: string;
}

/**
 * Platform API v3 (deprecated): `{status: <v3 code>, error}` (spec's v3 code table); `error` is the code's
 * description word for word, and `detail` says what in particular is wrong when there is more to say.
 */
export class V3ErrorAnswer {
  @IsInt() @JSONSchema({ description: 'The v3 error code (100-111, 401, 404, 500, or the HTTP status)' }) status!: number;
  @JSONSchema({ description: "The code's description in the v3 code table, word for word (e.g. `Body is invalid`)" })
  @IsString()
  error!: string;
  /** What in particular is wrong (e.g. `missing key template_id`), when the description alone does not say. */
  @IsOptional() @IsString() detail?: string;
  /** With 104 for an unexpected error: the id its log line carries. */
  @IsOptional() @IsString() error_id?: string;
}

/** An unexpected error (500) in any group but v3: logged under error_id. */
export class InternalErrorAnswer {
  @IsString() message!: string;
  @IsString() error_id!: string;
}

// ---- operations ----

export class HealthAnswer {
  @IsIn(['ok', 'unavailable', 'draining']) status!: 'ok' | 'unavailable' | 'draining';
  /** With the admin token: what is down. */
  @IsOptional() @IsString() message?: string;
  /** With the admin token: each component (gateway, redis, every service). */
  @IsOptional()
  @IsObject()
  @JSONSchema({
    additionalProperties: {
      type: 'object',
      required: ['status'],
      properties: { status: { enum: ['up', 'down'] }, detail: { type: 'string' }, instance_id: { type: 'string' } },
    },
  })
  components?: Record<string, { status: 'up' | 'down'; detail?: string; instance_id?: string }>;
}

export class LiveAnswer {
  @Equals('ok') status!: 'ok';
}

// ---- identity and admin ----

export class ApiKeyDescriptionAnswer {
  @IsString() id!: string;
  @IsIn(['account', 'workstream']) scope!: 'account' | 'workstream';
  @IsString() account_id!: string;
  @IsOptional() @IsString() workstream_id!: string | null;
}

export class ApiKeyAnswer extends ApiKeyDescriptionAnswer {
  @IsString() prefix!: string;
  @IsISO8601() created_at!: string;
  @IsOptional() @IsISO8601() last_used_at!: string | null;
  @IsOptional() @IsISO8601() revoked_at!: string | null;
  @IsOptional() @IsISO8601() expires_at!: string | null;
  @IsOptional() @IsString() rotated_from_id!: string | null;
}

/** A new or rotated key: the secret is shown this once. */
export class NewApiKeyAnswer {
  @IsString() id!: string;
  @IsString() key!: string;
}

export class CredentialsAnswer {
  @IsString() id!: string;
  @IsString() username!: string;
  @IsString() password!: string;
}

/** A new account with its platform API Basic credentials (shown this once). */
export class NewAccountAnswer extends CredentialsAnswer {
  @IsString() name!: string;
}

export class NewWorkerAnswer {
  @IsString() id!: string;
  /** The worker's Bearer token for the work API, shown this once. */
  @IsString() token!: string;
}

export class LineAnswer {
  @IsString() id!: string;
  @IsString() name!: string;
}

export class WorkstreamAnswer {
  @IsString() id!: string;
  @IsString() account_id!: string;
  @IsString() name!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UseCaseDto) use_cases!: UseCaseDto[];
  @IsNumber() qc_score_threshold!: number;
  @IsNumber() qc_sample_rate!: number;
  @IsISO8601() created_at!: string;
}

export class ConfigurationAnswer {
  @IsString() id!: string;
  @IsString() workstream_id!: string;
  @IsString() name!: string;
  @IsBoolean() extended_events!: boolean;
  @IsOptional() @IsString() tool_project_id!: string | null;
  @IsISO8601() created_at!: string;
}

export class BucketAnswer {
  @IsString() id!: string;
  @IsString() workstream_id!: string;
  @IsIn(BUCKET_DRIVERS) driver!: BucketDriver;
  @IsOptional() @IsString() root?: string;
  @IsOptional() @IsString() endpoint?: string;
  @IsOptional() @IsString() region?: string;
  @IsOptional() @IsString() bucket?: string;
  @IsOptional() @IsString() prefix?: string;
  @IsOptional() @IsString() access_key_id?: string;
  @IsOptional() @IsBoolean() force_path_style?: boolean;
  @IsISO8601() created_at!: string;
}

// ---- oversight ----

export class MediaGrantAnswer {
  /** PUT the media here (with its Content-Type) before it expires. */
  @IsString() media_upload_url!: string;
  @IsString() media_key!: string;
  @IsISO8601() expires_at!: string;
}

export class MediaStoredAnswer {
  @IsString() media_key!: string;
  @IsString() content_type!: string;
  @IsInt() @Min(0) size!: number;
}

export class TaskQuotaWindowAnswer {
  /** The limit in force: support's, else the default. */
  @IsInt() limit!: number;
  /** The gateway's default for this window (TASK_QUOTA_PER_*). */
  @IsInt() default_limit!: number;
  /** Whether support set this window's limit. */
  @IsBoolean() custom!: boolean;
  /** Task creations counted in the current window; null when Redis cannot answer (the quota then fails open). */
  @IsOptional() @IsInt() used!: number | null;
  /** When the current window ends (UTC). */
  @IsISO8601() resets_at!: string;
}

export class TaskQuotaAnswer {
  @IsString() workstream_id!: string;
  @ValidateNested() @Type(() => TaskQuotaWindowAnswer) day!: TaskQuotaWindowAnswer;
  @ValidateNested() @Type(() => TaskQuotaWindowAnswer) week!: TaskQuotaWindowAnswer;
  @ValidateNested() @Type(() => TaskQuotaWindowAnswer) month!: TaskQuotaWindowAnswer;
}

export class TaskCreatedAnswer {
  @IsString() task_id!: string;
}

export class TagAnswer {
  @IsString() value!: string;
  @IsNumber() confidence_score!: number;
}

export class MetadataItemAnswer {
  @IsString() key!: string;
  @IsString() value!: string;
}

export class TaskResultAnswer {
  @IsArray() @ValidateNested({ each: true }) @Type(() => TagAnswer) updated_tags!: TagAnswer[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => TagAnswer) existing_tags!: TagAnswer[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => MetadataItemAnswer) metadata!: MetadataItemAnswer[];
}

export class TaskErrorAnswer {
  @IsString() message!: string;
}

export class TaskAnswer {
  @IsString() task_id!: string;
  @IsIn(TASK_STATES) state!: TaskState;
  @IsString() media_key!: string;
  @IsString() configuration_id!: string;
  @IsOptional() @IsString() bucket_id!: string | null;
  @IsISO8601() created_at!: string;
  @IsISO8601() updated_at!: string;
  /** Present once COMPLETED. */
  @IsOptional() @ValidateNested() @Type(() => TaskResultAnswer) result?: TaskResultAnswer;
  /** Present once ERROR. */
  @IsOptional() @ValidateNested() @Type(() => TaskErrorAnswer) error?: TaskErrorAnswer;
}

export class AdminTaskAnswer extends TaskAnswer {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
}

export class TaskPageAnswer {
  @IsArray() @ValidateNested({ each: true }) @Type(() => AdminTaskAnswer) tasks!: AdminTaskAnswer[];
  /** Pass as `cursor` for the next page; null on the last one. */
  @IsOptional() @IsString() next_cursor!: string | null;
}

// ---- performance ----

export class RecordAcceptedAnswer {
  @IsOptional() @IsString() message?: string;
}

export class PresignedUploadAnswer {
  @IsString() upload_url!: string;
  @IsString() upload_id!: string;
  @IsISO8601() expires_at!: string;
  @Equals('PUT') method!: 'PUT';
  @Equals('text/csv') content_type!: 'text/csv';
}

export class UploadRejectionAnswer {
  /** Row number in the file: the header is row 1. */
  @IsInt() row!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => FieldErrorAnswer) errors!: FieldErrorAnswer[];
}

export class PerformanceUploadAnswer {
  @IsString() upload_id!: string;
  @IsString() workstream_id!: string;
  @IsIn(PERFORMANCE_UPLOAD_KINDS) kind!: PerformanceUploadKind;
  @IsOptional() @IsString() file_name!: string | null;
  @IsIn(['awaiting_upload', 'expired', 'queued', 'processing', 'completed', 'failed']) state!: string;
  @IsISO8601() expires_at!: string;
  @IsISO8601() created_at!: string;
  @IsOptional() @IsISO8601() received_at!: string | null;
  @IsOptional() @IsISO8601() started_at!: string | null;
  @IsOptional() @IsISO8601() finished_at!: string | null;
  @IsOptional() @IsInt() bytes!: number | null;
  @IsInt() rows_processed!: number;
  @IsInt() rows_accepted!: number;
  @IsInt() rows_stored!: number;
  @IsInt() rows_replaced!: number;
  @IsInt() rows_duplicates_ignored!: number;
  @IsInt() rows_rejected!: number;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UploadRejectionAnswer) rejections!: UploadRejectionAnswer[];
  @IsBoolean() rejections_truncated!: boolean;
  @IsOptional() @IsString() failure!: string | null;
}

export class QualityReportGroupAnswer {
  /** The group's value (a day, a worker, a use case, a task definition); null without group_by. */
  @IsOptional() @IsString() key!: string | null;
  @IsInt() count!: number;
  @IsNumber() mean_score!: number;
  @IsNumber() p50_score!: number;
  @IsNumber() p90_score!: number;
  @IsNumber() min_score!: number;
  @IsNumber() max_score!: number;
  @IsObject() @JSONSchema({ additionalProperties: { type: 'integer' } }) errors!: Record<string, number>;
}

export class ThroughputReportGroupAnswer {
  @IsOptional() @IsString() key!: string | null;
  @IsInt() records!: number;
  @IsInt() tasks!: number;
  @IsInt() subtasks!: number;
  @IsNumber() duration_seconds!: number;
  @IsOptional() @IsNumber() mean_duration_seconds!: number | null;
  @IsOptional() @IsNumber() tasks_per_hour!: number | null;
}

class ReportAnswer {
  @IsString() workstream_id!: string;
  @IsOptional() @IsString() from!: string | null;
  @IsOptional() @IsString() to!: string | null;
  @IsOptional() @IsString() group_by!: string | null;
}

export class QualityReportAnswer extends ReportAnswer {
  @Equals('quality') kind!: 'quality';
  @IsArray() @ValidateNested({ each: true }) @Type(() => QualityReportGroupAnswer) groups!: QualityReportGroupAnswer[];
}

export class ThroughputReportAnswer extends ReportAnswer {
  @Equals('throughput') kind!: 'throughput';
  @IsArray() @ValidateNested({ each: true }) @Type(() => ThroughputReportGroupAnswer) groups!: ThroughputReportGroupAnswer[];
}

// ---- deliveries ----

export class DeliveryAttemptAnswer {
  @IsInt() number!: number;
  @IsISO8601() attempted_at!: string;
  /** null when no HTTP status came back (timeout, connection error, refused address). */
  @IsOptional() @IsInt() status_code!: number | null;
  @IsInt() duration_ms!: number;
  @IsOptional() @IsString() error!: string | null;
  @IsOptional() @IsString() response_excerpt!: string | null;
}

export class DeliveryAnswer {
  @IsString() id!: string;
  @IsString() event_type!: string;
  @IsOptional() @IsString() task_id!: string | null;
  @IsOptional() @IsString() run_id!: string | null;
  @IsString() url!: string;
  @IsIn(DELIVERY_STATUSES) status!: DeliveryStatus;
  @IsInt() attempt_count!: number;
  @IsOptional() @IsISO8601() next_attempt_at!: string | null;
  @IsOptional() @IsInt() last_status_code!: number | null;
  @IsOptional() @IsString() last_error!: string | null;
  @IsISO8601() created_at!: string;
  @IsOptional() @IsISO8601() delivered_at!: string | null;
  @IsOptional() @IsISO8601() dead_at!: string | null;
}

export class DeliveryDetailAnswer extends DeliveryAnswer {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DeliveryAttemptAnswer) attempts!: DeliveryAttemptAnswer[];
}

export class DeliveryPageAnswer {
  @IsArray() @ValidateNested({ each: true }) @Type(() => DeliveryAnswer) deliveries!: DeliveryAnswer[];
  @IsOptional() @IsString() next_cursor!: string | null;
}

// ---- platform v4 and v3 ----

export class MessageAnswer {
  @IsString() message!: string;
}

export class RunCreatedAnswer {
  @IsString() id!: string;
  @IsString() line_id!: string;
  @IsIn(RUN_STATUSES) status!: string;
  @IsISO8601() created_at!: string;
}

export class UnitMetaAnswer {
  @IsIn(['Processing', 'Completed', 'Flagged', 'Aborted']) status!: string;
  @IsISO8601() created_at!: string;
  @IsOptional() @IsISO8601() processed_at!: string | null;
}

export class UnitAnswer {
  @IsObject() @JSONSchema(JSON_OBJECT) input!: Record<string, unknown>;
  /** Empty unless the unit completed. */
  @IsObject() @JSONSchema(JSON_OBJECT) output!: Record<string, unknown>;
  @ValidateNested() @Type(() => UnitMetaAnswer) meta!: UnitMetaAnswer;
}

/** Which units a GET with units_offset or units_limit answered (docs/platform-api.md, "Unit pagination"). */
export class UnitsPageAnswer {
  @IsInt() @Min(0) offset!: number;
  /** null when only units_offset was sent: every unit from the offset on. */
  @IsOptional() @IsInt() limit!: number | null;
  @IsInt() @Min(0) total!: number;
}

export class RunAnswer extends RunCreatedAnswer {
  @IsOptional() @IsISO8601() processed_at!: string | null;
  @IsArray() @ValidateNested({ each: true }) @Type(() => UnitAnswer) units!: UnitAnswer[];
  /** Only when units_offset or units_limit was sent. */
  @IsOptional() @ValidateNested() @Type(() => UnitsPageAnswer) units_page?: UnitsPageAnswer;
}

export class V3TaskCreatedAnswer {
  @IsString() template_id!: string;
  @IsString() task_id!: string;
  @IsIn(['In-Progress', 'Completed']) status!: string;
  @IsISO8601() started_at!: string;
}

export class V3TaskAnswer extends V3TaskCreatedAnswer {
  @IsOptional() @IsISO8601() finished_at!: string | null;
  /** Each unit: its input keys, its output keys, and extra.status. */
  @IsArray()
  @JSONSchema({
    items: {
      type: 'object',
      required: ['extra'],
      properties: { extra: { type: 'object', required: ['status'], properties: { status: { type: 'string' } } } },
    },
  })
  resources!: Record<string, unknown>[];
}

export class AdminRunAnswer {
  @IsString() id!: string;
  @IsString() account_id!: string;
  @IsString() line_id!: string;
  /** The API that created the run. */
  @IsIn(['v4', 'v3']) api!: PlatformApi;
  @IsIn(RUN_STATUSES) status!: RunStatusValue;
  @IsInt() unit_count!: number;
  /** Units not yet completed, flagged or aborted. */
  @IsInt() pending_units!: number;
  @IsBoolean() abort_requested!: boolean;
  @IsISO8601() created_at!: string;
  @IsOptional() @IsISO8601() processed_at!: string | null;
}

export class RunPageAnswer {
  @IsArray() @ValidateNested({ each: true }) @Type(() => AdminRunAnswer) runs!: AdminRunAnswer[];
  /** Pass as `cursor` for the next page; null on the last one. */
  @IsOptional() @IsString() next_cursor!: string | null;
}

// ---- work ----

export class UnitAssignmentAnswer {
  @IsString() assignment_id!: string;
  @Equals('unit') kind!: 'unit';
  @IsString() run_id!: string;
  @IsString() line_id!: string;
  @IsObject() @JSONSchema(JSON_OBJECT) input!: Record<string, unknown>;
  /** When the lease ends; after it the unit goes back to the queue. */
  @IsISO8601() lease_expires_at!: string;
}

export class TaskAssignmentAnswer {
  @IsString() assignment_id!: string;
  @Equals('task') kind!: 'task';
  @IsString() task_id!: string;
  /** Signed GET URL on the gateway, expiring with the lease. */
  @IsString() media_url!: string;
  @IsString() media_type!: string;
  @IsArray() @ValidateNested({ each: true }) @Type(() => TagAnswer) existing_tags!: TagAnswer[];
  /** The client's key-value items given with the task. */
  @IsArray() @ValidateNested({ each: true }) @Type(() => MetadataItemAnswer) metadata!: MetadataItemAnswer[];
  @IsISO8601() lease_expires_at!: string;
}

/** What complete and flag answer: units `{assignment_id, status}`, tasks `{assignment_id, kind, task_id, state}`. */
export class AssignmentOutcomeAnswer {
  @IsString() assignment_id!: string;
  @IsOptional() @IsIn(['Completed', 'Flagged']) status?: string;
  @IsOptional() @IsIn(['unit', 'task']) kind?: string;
  @IsOptional() @IsString() task_id?: string;
  @IsOptional() @IsIn(TASK_STATES) state?: TaskState;
  /** Only when the body asked for it (`next`): the next assignment, as `POST …/next` answers it, or null when there is none. */
  @IsOptional()
  @JSONSchema({ oneOf: [{ $ref: `${SCHEMA_REF_PREFIX}UnitAssignmentAnswer` }, { $ref: `${SCHEMA_REF_PREFIX}TaskAssignmentAnswer` }] })
  next?: UnitAssignmentAnswer | TaskAssignmentAnswer | null;
}

// ---- presigned URLs ----

/** The query of a presigned URL, as the API handed it out: use the URL as it is. */
export class SignedUrlQuery {
  /** Unix seconds after which the URL is refused. */
  @IsInt() expires!: number;
  /** Hex HMAC-SHA256 of method, path and expires. */
  @IsString() signature!: string;
}
