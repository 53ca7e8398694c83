import type { MetadataItemView, TagView, TaskState } from '../http/oversight.dto';

/** event_type values of oversight webhooks (spec "Event kinds"). */
export const TASK_EVENT_TYPES = { resultAvailable: 'task.result_available', error: 'task.error' } as const;
export type TaskEventType = (typeof TASK_EVENT_TYPES)[keyof typeof TASK_EVENT_TYPES];

/** The webhook body, exactly the spec's event object; task_details and metadata only with extended_events. */
export interface TaskWebhookEvent {
  uuid: string;
  event_type: TaskEventType;
  timestamp: string;
  request_id: string;
  task_id: string;
  diagnostic: { workstream_id: string; configuration_id: string; tool_project_id: string | null };
  task_details?: { state: TaskState; updated_tags: TagView[]; existing_tags: TagView[] };
  metadata?: MetadataItemView[];
}

/** Topic.TaskResultAvailable and Topic.TaskError: the same event, for other services, with its owner. */
export interface OversightTaskEvent {
  account_id: string;
  workstream_id: string;
  task_id: string;
  state: TaskState;
  /** Why the task failed (task.error only). */
  error?: string;
  event: TaskWebhookEvent;
}
