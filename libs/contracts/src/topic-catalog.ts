import { DeadLetterHeaders, DomainEventHeaders } from './events/envelope';
import { DeliveryDeadEvent, DeliveryRequestedEvent } from './events/delivery.events';
import { OversightTaskEvent, type TaskEventType } from './events/oversight.events';
import type { TaskState } from './http/oversight.dto';
import { QualityReviewForQcEvent, WorkstreamCreatedEvent } from './events/performance.events';
import { RunAbortRequestedEvent } from './rpc/platform.messages';
import { type AppName, GATEWAY_APP, ServiceName } from './services';
import { Topic } from './topics';

/** The apps of Workline: the gateway and the services behind it. */
export type WorklineApp = AppName;

/**
 * - public: an integration surface other services may consume;
 * - internal: a domain event between Workline's own apps (documented, but no promise to outside consumers);
 * - request-reply: the gateway's RPC plumbing, whose messages follow the RPC patterns (libs/contracts/src/rpc);
 *   left out of the AsyncAPI document.
 */
export type TopicAudience = 'public' | 'internal' | 'request-reply';

export interface TopicContract {
  audience: TopicAudience;
  /** What a message on the topic means. */
  summary: string;
  /** The apps that write the topic (domain events: through their outbox). */
  producers: WorklineApp[];
  /** The Workline apps that read the topic, each in its consumer group `workline-<app>`. */
  consumers: WorklineApp[];
  /** Who else reads it, in words. */
  otherReaders?: string;
  /** What the Kafka key is (messages of one key stay in order). */
  key: string;
  /** The class of the payload: of the envelope's `data` for domain events. Absent: any JSON, as described. */
  payload?: new () => object;
  /** Domain events travel in EventEnvelope with DomainEventHeaders; other messages as described. */
  envelope: 'domain-event' | 'dead-letter' | 'rpc';
}

const rpc = (service: WorklineApp): TopicContract => ({
  audience: 'request-reply',
  summary: `Requests from the gateway to ${service} ({pattern, data}; headers correlation-id, reply-topic, deadline).`,
  producers: [GATEWAY_APP],
  consumers: [service],
  key: 'correlation id',
  envelope: 'rpc',
});

const oversightTaskTopic = (state: TaskState, eventType: TaskEventType): TopicContract => ({
  audience: 'public',
  summary: `An oversight task became ${state}; \`event\` is the webhook event object (${eventType}).`,
  producers: [ServiceName.Oversight],
  consumers: [],
  otherReaders: 'other services',
  key: 'task id',
  payload: OversightTaskEvent,
  envelope: 'domain-event',
});

/**
 * Who writes and reads each topic, its key and its payload: stated once, here. The AsyncAPI document
 * (docs/asyncapi.json, GET /docs/asyncapi.json) is derived from it; docs/events.md summarises it.
 */
export const TOPIC_CATALOG: Record<Topic, TopicContract> = {
  [Topic.WorkstreamCreated]: {
    audience: 'public',
    summary: 'A workstream was created; services that keep per-workstream state may prepare.',
    producers: [ServiceName.Performance],
    consumers: [],
    otherReaders: 'other services',
    key: 'workstream id',
    payload: WorkstreamCreatedEvent,
    envelope: 'domain-event',
  },
  [Topic.QualityReviewForQc]: {
    audience: 'public',
    summary:
      "A quality record was stored or replaced that quality control should look at: it scored under its workstream's " +
      'qc_score_threshold, or was drawn by qc_sample_rate.',
    producers: [ServiceName.Performance],
    consumers: [],
    otherReaders: 'QC consumers',
    key: 'workstream id',
    payload: QualityReviewForQcEvent,
    envelope: 'domain-event',
  },
  [Topic.TaskResultAvailable]: oversightTaskTopic('COMPLETED', 'task.result_available'),
  [Topic.TaskError]: oversightTaskTopic('ERROR', 'task.error'),
  [Topic.DeliveryDead]: {
    audience: 'public',
    summary: 'A webhook or callback delivery failed its last retry (dead; POST /v1/deliveries/{id}/redeliver tries again).',
    producers: [ServiceName.WebhookDispatcher],
    consumers: [],
    otherReaders: 'operations, external',
    key: 'delivery id',
    payload: DeliveryDeadEvent,
    envelope: 'domain-event',
  },
  [Topic.DeadLetter]: {
    audience: 'public',
    summary:
      'A message whose handler kept failing after bounded retries: the original key, value and headers, plus dlq-* ' +
      'headers naming where it came from and why it failed.',
    producers: [ServiceName.Performance, ServiceName.Oversight, ServiceName.PlatformRuns, ServiceName.WebhookDispatcher],
    consumers: [],
    otherReaders: 'operations',
    key: "the original message's key",
    envelope: 'dead-letter',
  },
  [Topic.DeliveryRequested]: {
    audience: 'internal',
    summary:
      'Post this exact body to this URL, durably, with retries: task webhooks (oversight) and run callbacks ' +
      '(platform-runs). Secrets travel sealed.',
    producers: [ServiceName.Oversight, ServiceName.PlatformRuns],
    consumers: [ServiceName.WebhookDispatcher],
    key: "the subject's id: task id (oversight) or run id (platform-runs)",
    payload: DeliveryRequestedEvent,
    envelope: 'domain-event',
  },
  [Topic.RunAbortRequested]: {
    audience: 'internal',
    summary: 'A client asked to abort a run (202); platform-runs applies it once, from its own outbox.',
    producers: [ServiceName.PlatformRuns],
    consumers: [ServiceName.PlatformRuns],
    key: 'run id',
    payload: RunAbortRequestedEvent,
    envelope: 'domain-event',
  },
  [Topic.PerformanceRpc]: rpc(ServiceName.Performance),
  [Topic.OversightRpc]: rpc(ServiceName.Oversight),
  [Topic.PlatformRunsRpc]: rpc(ServiceName.PlatformRuns),
  [Topic.WebhookDispatcherRpc]: rpc(ServiceName.WebhookDispatcher),
  [Topic.RpcReplies]: {
    audience: 'request-reply',
    summary: 'Replies to the gateway ({ok: true, data} or {ok: false, error}); each gateway instance keeps the replies it waits for.',
    producers: [ServiceName.Performance, ServiceName.Oversight, ServiceName.PlatformRuns, ServiceName.WebhookDispatcher],
    consumers: [GATEWAY_APP],
    key: 'correlation id',
    envelope: 'rpc',
  },
};

/** The Kafka headers of each kind of message, as a class (derived into JSON Schema like the payloads). */
export const MESSAGE_HEADERS: Record<Exclude<TopicContract['envelope'], 'rpc'>, new () => object> = {
  'domain-event': DomainEventHeaders,
  'dead-letter': DeadLetterHeaders,
};
