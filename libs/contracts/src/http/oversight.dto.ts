import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsNotEmpty,
  IsNumber,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { PageQuery } from '../keyset-cursor';

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
  @IsOptional() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => TagDto)
  existing_tags?: TagDto[];
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
export class CompleteTaskAssignmentDto {
  @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => TagDto)
  updated_tags!: TagDto[];

  @IsOptional() @IsArray() @ArrayMaxSize(500) @ValidateNested({ each: true }) @Type(() => MetadataItemDto)
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
  lease_expires_at: string;
}

export const BUCKET_DRIVERS = ['fs'] as const;
export type BucketDriver = (typeof BUCKET_DRIVERS)[number];

export class CreateBucketDto {
  @IsIn(BUCKET_DRIVERS, { message: 'driver must be one of: fs' }) driver!: BucketDriver;
  /** Absolute directory on the hosts of the gateway and oversight (driver "fs"). */
  @IsString() @Matches(/^\//, { message: 'root must be an absolute path' }) @MaxLength(1000) root!: string;
}

export interface BucketView {
  id: string;
  workstream_id: string;
  driver: BucketDriver;
  root: string;
  created_at: string;
}

/** Gateway paths of presigned media URLs (signed with urlSigningKey: PUT to upload, GET for workers). */
export const mediaUploadPath = (mediaKey: string) => `/uploads/media/${mediaKey}`;
export const taskMediaPath = (taskId: string) => `/media/tasks/${taskId}`;

export const TASK_PAGE_DEFAULT = 20;

/** GET /admin/v1/tasks query string: every task of every account, newest first. */
export class ListTasksQuery extends PageQuery {
  @IsOptional() @IsString() @MaxLength(200)
  workstream_id?: string;

  @IsOptional() @IsIn(TASK_STATES, { message: 'state must be one of: QUEUED, IN_PROGRESS, COMPLETED, ERROR' })
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
