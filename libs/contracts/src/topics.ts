/**
 * Every Kafka topic Workline uses, in one place.
 *
 * DO NOT CHANGE a topic name in place: other services consume these topics. To change a topic's
 * name or its payload incompatibly, add a new `.v2` member and move producers and consumers over.
 * Names follow `workline.<domain>.<entity>.<event>.v<N>`.
 */
export enum Topic {
  /** Request-reply: requests to each service, one topic per service. */
  PerformanceRpc = 'workline.performance.rpc.v1',
  OversightRpc = 'workline.oversight.rpc.v1',
  PlatformRunsRpc = 'workline.platform-runs.rpc.v1',
  WebhookDispatcherRpc = 'workline.webhook-dispatcher.rpc.v1',
  /** Request-reply: every reply, read by each gateway instance (which keeps the replies it waits for). */
  RpcReplies = 'workline.gateway.rpc-replies.v1',
  /** Messages whose handler kept failing after bounded retries, with the reason in headers. */
  DeadLetter = 'workline.messaging.dead-letter.v1',
  /** Post a body to a client URL, durably and with retries (webhook-dispatcher); DeliveryRequestedEvent. */
  DeliveryRequested = 'workline.delivery.requested.v1',
  /** A delivery failed its last retry; DeliveryDeadEvent. */
  DeliveryDead = 'workline.delivery.dead.v1',
  /** A client asked to abort a run (platform-runs outbox, consumed by platform-runs); RunAbortRequestedEvent. */
  RunAbortRequested = 'workline.platform.run.abort-requested.v1',
  /** A workstream was created (performance outbox); payload WorkstreamCreatedEvent. */
  WorkstreamCreated = 'workline.performance.workstream.created.v1',
  /** An oversight task reached COMPLETED (oversight outbox); payload OversightTaskEvent. */
  TaskResultAvailable = 'workline.oversight.task.result-available.v1',
  /** An oversight task reached ERROR (oversight outbox); payload OversightTaskEvent. */
  TaskError = 'workline.oversight.task.error.v1',
  /**
   * A quality record scored below its workstream's threshold, or was drawn in the random sample: a QC
   * consumer should look at it (performance outbox); payload QualityReviewForQcEvent, key workstream id.
   */
  QualityReviewForQc = 'workline.performance.quality-review.for-qc.v1',
}

export interface TopicSpec {
  partitions: number;
  /** How long Kafka keeps messages, in hours. */
  retentionHours: number;
  /** Largest message the topic takes (max.message.bytes), when the broker's default (1 MB) is too small. */
  maxMessageBytes?: number;
}

/** Runs of 10,000 units travel whole: their creation request, their GET reply and their callback body. */
export const LARGE_MESSAGE_BYTES = 64 * 1024 * 1024;

const rpc: TopicSpec = { partitions: 6, retentionHours: 1 };
const event: TopicSpec = { partitions: 6, retentionHours: 24 * 7 };
const large = { maxMessageBytes: LARGE_MESSAGE_BYTES };

export const TOPIC_SPECS: Record<Topic, TopicSpec> = {
  [Topic.PerformanceRpc]: rpc,
  [Topic.OversightRpc]: rpc,
  [Topic.PlatformRunsRpc]: { ...rpc, ...large },
  [Topic.WebhookDispatcherRpc]: rpc,
  [Topic.RpcReplies]: { ...rpc, ...large },
  [Topic.DeadLetter]: { partitions: 3, retentionHours: 24 * 30, ...large },
  [Topic.WorkstreamCreated]: event,
  [Topic.DeliveryRequested]: { ...event, ...large },
  [Topic.RunAbortRequested]: event,
  [Topic.QualityReviewForQc]: event,
  [Topic.DeliveryDead]: event,
  [Topic.TaskResultAvailable]: event,
  [Topic.TaskError]: event,
};
