import { Type } from 'class-transformer';
import { IsArray, IsIn, IsISO8601, IsOptional, IsString, ValidateNested } from 'class-validator';
import { BUCKET_DRIVERS, type BucketDriver, ListTasksQuery, TagDto } from '../http/oversight.dto';

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

export class BucketCreateRequest {
  @IsString() workstream_id!: string;
  @IsString() account_id!: string;
  @IsIn(BUCKET_DRIVERS) driver!: BucketDriver;
  @IsString() root!: string;
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
}

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
  | { source: 'bucket'; driver: BucketDriver; root: string; key: string; content_type: string };
