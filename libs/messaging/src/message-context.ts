import { BaseRpcContext, EventPattern, MessagePattern } from '@nestjs/microservices';

/** What a handler is told about the message it handles, and the contexts and decorator that carry it. */
export interface KafkaMessageMeta {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  /** 1 on the first try of this message by this consumer, then 2, 3, ... */
  attempt: number;
  /**
   * On an RPC topic: the request's correlation id. A request run again after a crash (docs/decisions.md,
   * "RPC topics") carries the same one, so a handler whose effect must not repeat can key on it.
   */
  correlationId?: string;
}

/** The context a handler can take with `@Ctx()`: where the message came from and which try this is. */
export class KafkaMessageContext extends BaseRpcContext<[KafkaMessageMeta]> {
  get meta(): KafkaMessageMeta {
    return this.args[0];
  }
}

/**
 * The context of a batch handler (`@EventBatchPattern`): where each message of the batch came from, in the
 * order of the payload's array. Each message's request id is in its headers (REQUEST_ID_KAFKA_HEADER);
 * the handler itself runs under none, since the batch serves several requests.
 */
export class KafkaBatchContext extends BaseRpcContext<[KafkaMessageMeta[]]> {
  get messages(): KafkaMessageMeta[] {
    return this.args[0];
  }
}

/** Handler extra that marks a request-reply handler whose request may run twice (IdempotentPattern). */
export const IDEMPOTENT_EXTRA = 'workline.kafka.idempotent';

/**
 * Like `@MessagePattern(pattern)`, for a request that changes nothing more when it runs a second time: a
 * read, or a write keyed by its request (a record's unique_id or request id, a creation stored under its
 * request's correlation id, a redelivery in the inbox). Kafka may run a started request again after its
 * instance crashed, until its offset is committed: the transport commits these within
 * `rpcCommitDelayMs`, together, and every other request's offset at once (docs/decisions.md, "RPC topics").
 */
export const IdempotentPattern = (pattern: string): MethodDecorator => MessagePattern(pattern, { [IDEMPOTENT_EXTRA]: true });

/** Handler extra that marks a batch handler. */
export const BATCH_EXTRA = 'workline.kafka.batch';

/**
 * Like `@EventPattern(topic)`, but the handler takes, at once, everything that queued on a partition of the
 * topic while its previous call ran (no waiting to fill a batch): `@Payload()` is the array of the
 * messages' values (parsed JSON), `@Ctx()` a KafkaBatchContext. Offsets are committed once the call has
 * resolved. If a call of several messages throws, each message is given to the handler again on its own
 * (a batch of one), with the retries and dead-lettering of `@EventPattern`: a bad message fails alone.
 * So a handler must leave nothing behind when it throws (one transaction for the batch).
 */
export const EventBatchPattern = (topic: string): MethodDecorator => EventPattern(topic, { [BATCH_EXTRA]: true });
