import type { ErrorBody } from '@workline/contracts';

/** Wire format of request-reply over Kafka (private to this library). */
export enum RpcHeader {
  CorrelationId = 'correlation-id',
  ReplyTopic = 'reply-topic',
  /** Epoch milliseconds after which the caller no longer waits: the service drops the request. */
  Deadline = 'deadline',
}

export interface RpcRequest {
  pattern: string;
  data: unknown;
}

export type RpcReply = { ok: true; data: unknown } | { ok: false; error: ErrorBody };
