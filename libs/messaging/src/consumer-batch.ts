import type { Batch, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { KafkaMessageMeta } from './message-context';
import { decodeHeaders } from './message-errors';

/** Commits every offset resolved and not yet committed, on any partition of the consumer (kafkajs' bookkeeping). */
export function committerOf(payload: EachBatchPayload): () => Promise<void> {
  return () => payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
}

/** True while a batch may go on: the consumer runs, no seek or rebalance made it stale, the transport is not closing. */
export function batchGoesOn({ isRunning, isStale }: EachBatchPayload, closing: boolean): boolean {
  return isRunning() && !isStale() && !closing;
}

/** What a handler is told about one message of a batch (its KafkaMessageContext or KafkaBatchContext). */
export function messageMeta(
  batch: Batch,
  message: KafkaMessage,
  attempt: number,
  headers = decodeHeaders(message.headers),
): KafkaMessageMeta {
  return {
    topic: batch.topic,
    partition: batch.partition,
    offset: message.offset,
    key: message.key?.toString() ?? null,
    headers,
    attempt,
  };
}
