import type { Logger } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { Batch, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { batchGoesOn, messageMeta } from './consumer-batch';
import type { HandlerRunner } from './handler-runner';
import { IDEMPOTENT_EXTRA, KafkaMessageContext } from './message-context';
import { decodeHeaders, describeError, toErrorBody } from './message-errors';
import { MessageTooLargeError } from './message-size';
import type { KafkaProducer } from './producer';
import { RpcHeader, type RpcReply, type RpcRequest } from './rpc.protocol';

export interface RpcRequestServerOptions {
  /** Requests under way at once; the next batch waits for a free place. */
  maxConcurrentRequests: number;
  /** How long a started `@IdempotentPattern` request's offset may wait to be committed with later ones. */
  rpcCommitDelayMs: number;
}

/**
 * The request-reply half of KafkaTransport: starts the requests of the service's RPC topic, sends their
 * replies, and commits their offsets once they have started (docs/decisions.md, "RPC topics").
 */
export class RpcRequestServer {
  private readonly inFlight = new Set<Promise<void>>();
  /** The latest batch's committer (set by the transport): commits survive the batch, as kafkajs keeps one offset book per consumer. */
  committer?: () => Promise<void>;
  private commitTimer?: NodeJS.Timeout;
  private commitInFlight?: Promise<void>;
  private commitAgain = false;
  /** Set when a request that must not run twice started: its batch's offsets are committed at once. */
  private unsafeToReplayStarted = false;

  constructor(
    private readonly runner: HandlerRunner,
    private readonly producer: KafkaProducer,
    private readonly logger: Logger,
    private readonly options: RpcRequestServerOptions,
    private readonly closing: () => boolean,
  ) {}

  get underWay(): number {
    return this.inFlight.size;
  }

  /** Settles when every request started so far has sent its reply (or failed to). */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.inFlight]);
  }

  /**
   * Starts every request of the batch (at most maxConcurrentRequests under way) and returns: the next batch
   * is fetched while these run. Requests are independent; losing one in a crash only makes its caller time
   * out (no 2xx was given), so a request's offset may be committed once it has started: at once, or for
   * an `@IdempotentPattern` request with the others started within rpcCommitDelayMs, in one commit
   * (docs/decisions.md, "RPC topics").
   */
  async dispatch(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset } = payload;
    try {
      for (const message of batch.messages) {
        if (!batchGoesOn(payload, this.closing())) return;
        while (this.inFlight.size >= this.options.maxConcurrentRequests) await Promise.race(this.inFlight);
        if (!batchGoesOn(payload, this.closing())) return;
        const task = this.answer(batch, message).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
        resolveOffset(message.offset);
      }
    } finally {
      if (this.unsafeToReplayStarted) {
        this.unsafeToReplayStarted = false;
        void this.commitStarted();
      } else this.scheduleCommit();
    }
  }

  private scheduleCommit(): void {
    if (this.commitTimer || this.closing()) return;
    this.commitTimer = setTimeout(() => void this.commitStarted(), this.options.rpcCommitDelayMs);
  }

  /**
   * Commits the offsets of the requests started so far (and of any event already handled); one commit at a
   * time, and one more right after it when asked meanwhile. What a failed commit (a rebalance under way, a
   * broker restarting) leaves uncommitted goes with the next commit, and is at worst started again by the
   * partition's next owner, if its caller still waits (docs/decisions.md). Not retried on a timer: after
   * a consumer restart the failing commit would be the old consumer's, for ever.
   */
  commitStarted(): Promise<void> {
    clearTimeout(this.commitTimer);
    this.commitTimer = undefined;
    if (this.commitInFlight) {
      this.commitAgain = true;
      return this.commitInFlight;
    }
    this.commitInFlight = (async () => {
      try {
        do {
          this.commitAgain = false;
          await this.committer?.();
        } while (this.commitAgain);
      } catch (error) {
        this.logger.debug(`could not commit the offsets of started requests (${describeError(error)}); they go with the next commit`);
      } finally {
        this.commitInFlight = undefined;
      }
    })();
    return this.commitInFlight;
  }

  private answer(batch: Batch, message: KafkaMessage): Promise<void> {
    // Decoded once: the request id, the RPC headers and the handler's context all read them.
    const headers = decodeHeaders(message.headers);
    return runWithRequestId(headers[REQUEST_ID_KAFKA_HEADER], () => this.answerInContext(batch, message, headers));
  }

  private async answerInContext(batch: Batch, message: KafkaMessage, headers: Record<string, string>): Promise<void> {
    const { topic, partition } = batch;
    const correlationId = headers[RpcHeader.CorrelationId];
    const replyTopic = headers[RpcHeader.ReplyTopic];
    const deadline = Number(headers[RpcHeader.Deadline] ?? 0);
    if (!correlationId || !replyTopic) {
      this.logger.warn(
        `dropping a request without ${RpcHeader.CorrelationId}/${RpcHeader.ReplyTopic} at ${topic}[${partition}]@${message.offset}`,
      );
      return;
    }
    if (deadline && Date.now() > deadline) return;

    let reply: RpcReply;
    try {
      const request = JSON.parse(message.value?.toString() ?? '') as RpcRequest;
      const handler = this.runner.handlerFor(request.pattern);
      if (!handler || handler.isEventHandler) throw DomainError.notFound(`no handler for "${request.pattern}"`);
      // Still in the turn that dispatch started this request in (nothing above awaits), so its batch's
      // offsets are committed at once.
      if (!handler.extras?.[IDEMPOTENT_EXTRA]) this.unsafeToReplayStarted = true;
      const context = new KafkaMessageContext([{ ...messageMeta(batch, message, 1, headers), correlationId }]);
      const result = await this.runner.run('rpc', request.pattern, handler, request.data, context, null);
      reply = { ok: true, data: result ?? null };
    } catch (error) {
      const body = toErrorBody(error);
      if (body.code === ErrorCode.Internal)
        this.logger.error(`request on ${topic} failed`, error instanceof Error ? error.stack : String(error));
      reply = { ok: false, error: body };
    }
    try {
      await this.sendReply(replyTopic, correlationId, reply);
    } catch (error) {
      if (!(error instanceof MessageTooLargeError)) {
        this.logger.error(`could not send the reply to ${replyTopic}: ${String(error)}`);
        return;
      }
      // Better an error the caller can show than a timeout it would retry.
      this.logger.error(`the reply to ${replyTopic} is too large: ${error.message}`);
      await this.sendReply(replyTopic, correlationId, {
        ok: false,
        error: { code: ErrorCode.Internal, message: 'The answer is larger than the service can send' },
      }).catch((sendError: unknown) => this.logger.error(`could not send the reply to ${replyTopic}: ${String(sendError)}`));
    }
  }

  private sendReply(replyTopic: string, correlationId: string, reply: RpcReply): Promise<void> {
    return this.producer.send(replyTopic, [{ key: correlationId, value: reply, headers: { [RpcHeader.CorrelationId]: correlationId } }]);
  }
}
