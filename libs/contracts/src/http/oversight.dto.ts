import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '../keyset-cursor';
import { WithFollowUpNext } from './work.dto';

/** Oversight API (docs/oversight-api.md): media upload grants, tasks, task status, mounted buckets. */

/** Media types a signed upload accepts (Content-Type of the PUT). */
export const UPLOAD_MEDIA_TYPES = ['image/jpeg', 'image/png', 'application/pdf', 'video/mp4', 'text/plain'] as const;
/** Mounted buckets hold images only (spec "Bucket rule"); their objects are recognised by their first bytes. */
export const BUCKET_MEDIA_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;

/** Media keys minted by oversight for the upload flow. */
export const MEDIA_KEY_PATTERN = /^med_[A-Za-z0-9_-]{16,64}$/;

export const TASK_STATES = ['QUEUED', 'IN_PROGRESS', 'COMPLETED', 'ERROR'] as const;
export type TaskState = (typeof TASK_STATES)[number];

export class CreateMediaGrantDto {
  @IsString() @IsNotEmpty() @MaxLength(200) configuration_id!: string;
}

export interface MediaGrantView {
  media_upload_url: string;
  media_key: string;
  expires_at: string;
}

export class TagDto {
  @IsString() @IsNotEmpty() @MaxLength(500) value!: string;
  @IsNumber({ allowNaN: false, allowInfinity: false }) @Min(0) @Max(1) confidence_score!: number;
}

export class MetadataItemDto {
  @IsString() @IsNotEmpty() @MaxLength(200) key!: string;
  @IsString() @MaxLength(5000) value!: string;
}

export class CreateTaskDto {
  /** A key from POST /v1/signed-url, or (with bucket_id) the object's key within the mounted bucket. */
  @IsString() @IsNotEmpty() @MaxLength(512) media_key!: string;
  @IsString() @IsNotEmpty() @MaxLength(200) configuration_id!: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(200) bucket_id?: string;
  @IsOptional() @IsString() @IsNotEmpty() @MaxLength(2048) callback_url?: string;
  /** Tags the client already has; shown to the worker and echoed in extended events. */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => TagDto)
  existing_tags?: TagDto[];
  /**
   * The client's own key-value items: shown to the worker, and first in the `metadata` of extended events
   * (the worker's items follow them).
   */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(100)
  @ValidateNested({ each: true })
  @Type(() => MetadataItemDto)
  metadata?: MetadataItemDto[];
}

export interface TaskCreatedView {
  task_id: string;
}

export interface TagView {
  value: string;
  confidence_score: number;
}

export interface MetadataItemView {
  key: string;
  value: string;
}

export interface TaskView {
  task_id: string;
  state: TaskState;
  media_key: string;
  configuration_id: string;
  bucket_id: string | null;
  created_at: string;
  updated_at: string;
  /** Present once COMPLETED. */
  result?: { updated_tags: TagView[]; existing_tags: TagView[]; metadata: MetadataItemView[] };
  /** Present once ERROR. */
  error?: { message: string };
}

/** Work API body of `complete` for a task. */
export class CompleteTaskAssignmentDto extends WithFollowUpNext {
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => TagDto)
  updated_tags!: TagDto[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(500)
  @ValidateNested({ each: true })
  @Type(() => MetadataItemDto)
  metadata?: MetadataItemDto[];
}

/** Work API answer of `next` with kind "task". */
export interface TaskAssignmentView {
  assignment_id: string;
  kind: 'task';
  task_id: string;
  /** Signed GET URL on the gateway, expiring with the lease. */
  media_url: string;
  media_type: string;
  existing_tags: TagView[];
  /** The client's items given with the task. */
  metadata: MetadataItemView[];
  lease_expires_at: string;
}

export const BUCKET_DRIVERS = ['fs', 's3'] as const;
export type BucketDriver = (typeof BUCKET_DRIVERS)[number];

const fsDriver = (body: CreateBucketDto) => body.driver === 'fs';
const s3Driver = (body: CreateBucketDto) => body.driver === 's3';

/**
 * Mounting a bucket (docs/admin-api.md): driver "fs" takes `root`; driver "s3" takes an S3-compatible
 * bucket and the credentials to read it. The secret access key is sealed by the gateway at once and is
 * never shown again.
 */
/** The largest task-creation limit support may set for one window. */
export const TASK_QUOTA_MAX = 1_000_000_000;

/**
 * A workstream's task-creation quota as support sets it (PUT replaces all three): a limit per window, or
 * null (or left out) for the gateway's default.
 */
export class SetTaskQuotaDto {
  @IsOptional() @IsInt() @Min(1) @Max(TASK_QUOTA_MAX) day?: number | null;
  @IsOptional() @IsInt() @Min(1) @Max(TASK_QUOTA_MAX) week?: number | null;
  @IsOptional() @IsInt() @Min(1) @Max(TASK_QUOTA_MAX) month?: number | null;
}

export class CreateBucketDto {
  @IsIn(BUCKET_DRIVERS, { message: 'driver must be one of: fs, s3' }) driver!: BucketDriver;
  /** Absolute directory on the hosts of the gateway and oversight (driver "fs"). */
  @ValidateIf(fsDriver)
  @IsString({ message: 'root must be an absolute path' })
  @Matches(/^\//, { message: 'root must be an absolute path' })
  @MaxLength(1000)
  root?: string;
  /** Driver "s3": the S3-compatible service, e.g. https://s3.eu-west-1.amazonaws.com or http://minio:9000. */
  @ValidateIf(s3Driver)
  @IsString({ message: 'endpoint must be an http(s) URL' })
  @Matches(/^https?:\/\/[^\s/?#@]+(\/[^\s?#]*)?$/, {
    message: 'endpoint must be an http(s) URL without query, fragment or credentials, e.g. https://s3.eu-west-1.amazonaws.com',
  })
  @MaxLength(500)
  endpoint?: string;
  @ValidateIf(s3Driver)
  @IsString({ message: 'region must be a region name such as us-east-1' })
  @Matches(/^[a-z0-9][a-z0-9-]{0,49}$/, { message: 'region must be a region name such as us-east-1' })
  region?: string;
  @ValidateIf(s3Driver)
  @IsString({ message: 'bucket must be an S3 bucket name' })
  @Matches(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, {
    message: 'bucket must be an S3 bucket name: 3 to 63 lowercase letters, digits, dots and hyphens',
  })
  bucket?: string;
  /** Prepended as is to every media_key (include the trailing slash of a folder: "photos/"). */
  @ValidateIf((body: CreateBucketDto) => s3Driver(body) && body.prefix !== undefined)
  @IsString({ message: 'prefix must be a string' })
  @Matches(/^(?!\/)/, { message: 'prefix must not start with a slash' })
  @MaxLength(512, { message: 'prefix must be at most 512 characters' })
  prefix?: string;
  @ValidateIf(s3Driver)
  @IsString({ message: 'access_key_id must be a non-empty string' })
  @IsNotEmpty({ message: 'access_key_id must be a non-empty string' })
  @MaxLength(128, { message: 'access_key_id must be at most 128 characters' })
  access_key_id?: string;
  /** Write-only: stored sealed (SecretBox), never returned or logged. */
  @ValidateIf(s3Driver)
  @IsString({ message: 'secret_access_key must be a non-empty string' })
  @IsNotEmpty({ message: 'secret_access_key must be a non-empty string' })
  @MaxLength(256, { message: 'secret_access_key must be at most 256 characters' })
  secret_access_key?: string;
  /** Path-style addressing (`<endpoint>/<bucket>/<key>`; the default, true) or virtual-hosted (`<bucket>.<endpoint host>`). */
  @ValidateIf((body: CreateBucketDto) => s3Driver(body) && body.force_path_style !== undefined)
  @IsBoolean({ message: 'force_path_style must be true or false' })
  force_path_style?: boolean;
}

/** A mounted bucket as shown by the API: its settings, never its secret access key. */
export interface BucketView {
  id: string;
  workstream_id: string;
  driver: BucketDriver;
  /** Driver "fs". */
  root?: string;
  /** Driver "s3". */
  endpoint?: string;
  region?: string;
  bucket?: string;
  prefix?: string;
  access_key_id?: string;
  force_path_style?: boolean;
  created_at: string;
}

/** Gateway paths of presigned media URLs (signed with urlSigningKey: PUT to upload, GET for workers). */
export const mediaUploadPath = (mediaKey: string) => `/uploads/media/${mediaKey}`;
export const taskMediaPath = (taskId: string) => `/media/tasks/${taskId}`;

export const TASK_PAGE_DEFAULT = 20;

/** GET /admin/v1/tasks query string: every task of every account, newest first. */
export class ListTasksQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  workstream_id?: string;

  @IsOptional()
  @IsIn(TASK_STATES, { message: 'state must be one of: QUEUED, IN_PROGRESS, COMPLETED, ERROR' })
  state?: TaskState;
}

/** A task as the admin API lists it: the task's view, plus whose it is. */
export interface AdminTaskView extends TaskView {
  workstream_id: string;
  account_id: string;
}

export interface TaskPage {
  tasks: AdminTaskView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}
