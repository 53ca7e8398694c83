import {
  type DeliveryRequestedEvent,
  type MetadataItemView,
  type OversightTaskEvent,
  ServiceName,
  type TagView,
  TASK_EVENT_TYPES,
  type TaskState,
  type TaskWebhookEvent,
  Topic,
} from '@workline/contracts';
import { enqueueEvent, type Tx } from '@workline/messaging';
import { randomUUID } from 'node:crypto';

/** The task columns an event is built from. */
export interface TaskEventSource {
  id: string;
  workstreamId: string;
  accountId: string;
  configurationId: string;
  state: string;
  existingTags: unknown;
  updatedTags: unknown;
  metadata: unknown;
  error: string | null;
  callbackUrl: string | null;
  sealedAuthorization: string | null;
  sealedApiKey: string;
}

export interface ConfigurationEventSettings {
  extendedEvents: boolean;
  toolProjectId: string | null;
}

/** The webhook body: exactly the spec's event object, extended only when the configuration says so. */
export function buildTaskWebhookEvent(
  task: TaskEventSource,
  configuration: ConfigurationEventSettings,
  now = new Date(),
): TaskWebhookEvent {
  const state = task.state as TaskState;
  const event: TaskWebhookEvent = {
    uuid: randomUUID(),
    event_type: state === 'COMPLETED' ? TASK_EVENT_TYPES.resultAvailable : TASK_EVENT_TYPES.error,
    timestamp: now.toISOString(),
    request_id: task.id,
    task_id: task.id,
    diagnostic: { workstream_id: task.workstreamId, configuration_id: task.configurationId, tool_project_id: configuration.toolProjectId },
  };
  if (configuration.extendedEvents) {
    event.task_details = {
      state,
      updated_tags: (task.updatedTags as TagView[] | null) ?? [],
      existing_tags: (task.existingTags as TagView[] | null) ?? [],
    };
    event.metadata = (task.metadata as MetadataItemView[] | null) ?? [];
  }
  return event;
}

/**
 * Writes a finished task's event into the outbox, in the caller's transaction (the one that changed the
 * state): on its Kafka topic for other services, and as a delivery request when the task has a callback.
 */
export async function enqueueTaskEvent(
  tx: Tx,
  task: TaskEventSource,
  configuration: ConfigurationEventSettings,
): Promise<TaskWebhookEvent> {
  const event = buildTaskWebhookEvent(task, configuration);
  const message: OversightTaskEvent = {
    account_id: task.accountId,
    workstream_id: task.workstreamId,
    task_id: task.id,
    state: task.state as TaskState,
    ...(task.error ? { error: task.error } : {}),
    event,
  };
  const topic = task.state === 'COMPLETED' ? Topic.TaskResultAvailable : Topic.TaskError;
  await enqueueEvent(tx, ServiceName.Oversight, topic, message, { key: task.id });
  if (task.callbackUrl) {
    const delivery: DeliveryRequestedEvent = {
      delivery_id: event.uuid,
      owner: { account_id: task.accountId, workstream_id: task.workstreamId },
      subject: { task_id: task.id },
      event_type: event.event_type,
      url: task.callbackUrl,
      // Signed as these exact bytes by the dispatcher.
      body: JSON.stringify(event),
      signing: 'x-svc-signature',
      sealed_secret: task.sealedApiKey,
      ...(task.sealedAuthorization ? { sealed_authorization: task.sealedAuthorization } : {}),
    };
    await enqueueEvent(tx, ServiceName.Oversight, Topic.DeliveryRequested, delivery, { key: task.id });
  }
  return event;
}
