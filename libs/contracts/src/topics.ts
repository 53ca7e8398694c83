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
  PlatformRpc = 'workline.platform.rpc.v1',
  DeliveryRpc = 'workline.delivery.rpc.v1',
  /** Request-reply: every reply, read by each gateway instance (which keeps the replies it waits for). */
  RpcReplies = 'workline.gateway.rpc-replies.v1',
  /** Messages whose handler kept failing after bounded retries, with the reason in headers. */
  DeadLetter = 'workline.messaging.dead-letter.v1',
  /** Post a body to a client URL, durably and with retries (webhook-dispatcher); DeliveryRequestedEvent. */
  DeliveryRequested = 'workline.delivery.requested.v1',
  /** A delivery failed its last retry; DeliveryDeadEvent. */
  DeliveryDead = 'workline.delivery.dead.v1',
  /** A workstream was created (performance outbox); payload WorkstreamCreatedEvent. */
  WorkstreamCreated = 'workline.performance.workstream.created.v1',
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
}

const rpc: TopicSpec = { partitions: 6, retentionHours: 1 };
const event: TopicSpec = { partitions: 6, retentionHours: 24 * 7 };

export const TOPIC_SPECS: Record<Topic, TopicSpec> = {
  [Topic.PerformanceRpc]: rpc,
  [Topic.OversightRpc]: rpc,
  [Topic.PlatformRpc]: rpc,
  [Topic.DeliveryRpc]: rpc,
  [Topic.RpcReplies]: rpc,
  [Topic.DeadLetter]: { partitions: 3, retentionHours: 24 * 30 },
  [Topic.WorkstreamCreated]: event,
  [Topic.QualityReviewForQc]: event,
  [Topic.DeliveryRequested]: event,
  [Topic.DeliveryDead]: event,
};
