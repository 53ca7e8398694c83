import { Type } from 'class-transformer';
import { IsArray, IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID, ValidateNested } from 'class-validator';
import { MetadataItemDto, type MetadataItemView, TagDto, TASK_STATES, type TagView, type TaskState } from '../http/oversight.dto';

/** event_type values of oversight webhooks (spec "Event kinds"). */
export const TASK_EVENT_TYPES = { resultAvailable: 'task.result_available', error: 'task.error' } as const;
export type TaskEventType = (typeof TASK_EVENT_TYPES)[keyof typeof TASK_EVENT_TYPES];

export class TaskEventDiagnostic {
  @IsString() workstream_id!: string;
  @IsString() configuration_id!: string;
  @IsOptional() @IsString() tool_project_id!: string | null;
}

/** A finished task's tags, in events with extended_events. Tags have the shape clients and workers send (TagDto). */
export class TaskEventDetails {
  @IsIn(TASK_STATES) state!: TaskState;
  @IsArray() @ValidateNested({ each: true }) @Type(() => TagDto) updated_tags!: TagView[];
  @IsArray() @ValidateNested({ each: true }) @Type(() => TagDto) existing_tags!: TagView[];
}

/** The webhook body, exactly the spec's event object; task_details and metadata only with extended_events. */
export class TaskWebhookEvent {
  @IsUUID() uuid!: string;
  @IsIn(Object.values(TASK_EVENT_TYPES)) event_type!: TaskEventType;
  @IsISO8601() timestamp!: string;
  @IsString() request_id!: string;
  @IsString() task_id!: string;
  @IsObject() @ValidateNested() @Type(() => TaskEventDiagnostic) diagnostic!: TaskEventDiagnostic;
  @IsOptional() @IsObject() @ValidateNested() @Type(() => TaskEventDetails) task_details?: TaskEventDetails;
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => MetadataItemDto) metadata?: MetadataItemView[];
}

/** Topic.TaskResultAvailable and Topic.TaskError: the same event, for other services, with its owner. */
export class OversightTaskEvent {
  @IsString() account_id!: string;
  @IsString() workstream_id!: string;
  @IsString() task_id!: string;
  @IsIn(TASK_STATES) state!: TaskState;
  /** Why the task failed (task.error only). */
  @IsOptional() @IsString() error?: string;
  @IsObject() @ValidateNested() @Type(() => TaskWebhookEvent) event!: TaskWebhookEvent;
}
