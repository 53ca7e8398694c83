import { Type } from 'class-transformer';
import { IsArray, IsBoolean, IsISO8601, IsObject, IsOptional, IsString, ValidateNested } from 'class-validator';
import { ListTasksQuery, MetadataItemDto, TagDto } from '../http/oversight.dto';

/** RPC payloads between the gateway and oversight (RpcPattern.MediaGrantCreate, TaskCreate, ...). */

/** A configuration as seen by a caller: its account, and its workstream unless it holds a project-level key. */
export class ConfigurationGetRequest {
  @IsString() account_id!: string;
  @IsOptional() @IsString() workstream_id?: string;
  @IsString() configuration_id!: string;
}

export class MediaGrantCreateRequest {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsString() configuration_id!: string;
  @IsISO8601() expires_at!: string;
}

export interface MediaGrantCreateReply {
  media_key: string;
}

/**
 * A mounted bucket as the services pass it around (in RPC payloads and MediaLocation): the secret access
 * key of an S3 bucket only ever sealed (SecretBox with SECRETS_KEY).
 */
export type MountedBucketSpec =
  | { driver: 'fs'; root: string }
  | {
      driver: 's3';
      endpoint: string;
      region: string;
      bucket: string;
      prefix: string;
      access_key_id: string;
      sealed_secret_access_key: string;
      force_path_style: boolean;
    };

export class BucketCreateRequest {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  /** Already validated by the gateway (CreateBucketDto); the secret sealed there. */
  @IsObject() bucket!: MountedBucketSpec;
}

export class TaskCreateRequest {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  /** The x-api-key that creates the task, sealed (SecretBox): its webhooks are signed with it. */
  @IsString() sealed_api_key!: string;
  @IsString() media_key!: string;
  @IsString() configuration_id!: string;
  @IsOptional() @IsString() bucket_id?: string;
  /** Already checked by the gateway (checkCallbackUrl). */
  @IsOptional() @IsString() callback_url?: string;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => TagDto) existing_tags?: TagDto[];
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => MetadataItemDto) metadata?: MetadataItemDto[];
  /** The client's Idempotency-Key (already checked by the gateway with parseIdempotencyKey). */
  @IsOptional() @IsString() idempotency_key?: string;
  /**
   * Only answer a replay (the quota is full): the task already created under idempotency_key, or
   * `{replayed: false}` without creating anything.
   */
  @IsOptional() @IsBoolean() replay_only?: boolean;
}

/** RpcPattern.TaskCreate's answer: the task, and whether it was created earlier under the same key. */
export type TaskCreateReply = { task_id: string; replayed: boolean } | { task_id?: undefined; replayed: false };

export class TaskGetRequest {
  @IsString() account_id!: string;
  /** Absent for a project-level key: any task of the account. */
  @IsOptional() @IsString() workstream_id?: string;
  @IsString() task_id!: string;
}

/** The admin listing (no account: the admin token sees every task). */
export class TaskListRequest extends ListTasksQuery {}

export class TaskMediaLocateRequest {
  @IsString() task_id!: string;
}

/** Where a task's media bytes are, for the gateway to stream them to a worker. */
export type MediaLocation =
  | { source: 'upload'; blob_key: string; content_type: string }
  | { source: 'bucket'; bucket: MountedBucketSpec; key: string; content_type: string };

/**
 * Blob-store folder of uploaded media: the gateway writes each media PUT to `mediaBlobKey` (and sweeps
 * what a PUT killed half-way left in the folder), the oversight service reads and deletes it.
 */
export const MEDIA_BLOB_FOLDER = 'media/';
export const mediaBlobKey = (mediaKey: string) => `${MEDIA_BLOB_FOLDER}${mediaKey}`;
