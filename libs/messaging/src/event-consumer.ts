import type { Logger } from '@nestjs/common';
import type { MessageHandler } from '@nestjs/microservices';
import { deadLetterHeaders, DomainError, ErrorCode, Topic } from '@workline/contracts';
import { isConnectionLoss } from '@workline/db';
import { REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { Batch, EachBatchPayload, KafkaMessage } from 'kafkajs';
import { batchGoesOn, committerOf, messageMeta } from './consumer-batch';
import type { HandlerRunner } from './handler-runner';
import { BATCH_EXTRA, KafkaBatchContext, KafkaMessageContext } from './message-context';
import { decodeHeaders, describeError, isPoison } from './message-errors';
import type { KafkaProducer } from './producer';

/** Longest pause between two tries of an event handler (one waiting for an unreachable dependency keeps trying). */
const MAX_RETRY_BACKOFF_MS = 5_000;

/** Most messages handed to one batch handler call. */
const MAX_BATCH_MESSAGES = 1000;

export interface EventConsumerOptions {
  /** Tries of a handler, for the message's own sake, before it goes to the dead-letter topic. */
  maxAttempts: number;
  /** Wait after the first failed try; doubles each time, up to 5 s. */
  retryBackoffMs: number;
  /** The consumer group, named in a dead letter's headers. */
  groupId: string;
  /** The app, a dead letter's CloudEvents source. */
  app: string;
}

/**
 * The event half of KafkaTransport: hands a partition's batch to its `@EventPattern` handler message by
 * message, or to its `@EventBatchPattern` handler at once; retries a failing message with exponential
 * backoff, then dead-letters it; commits offsets only once their messages are handled.
 */
export class EventConsumer {
  constructor(
    private readonly runner: HandlerRunner,
    private readonly producer: KafkaProducer,
    private readonly logger: Logger,
    private readonly options: EventConsumerOptions,
    private readonly closing: () => boolean,
  ) {}

  /**
   * A partition's batch of an event topic: offsets resolved only once handled, and committed after each
   * batch handler call, or once the batch is done. A batch that throws still commits what it finished.
   */
  async consume(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset } = payload;
    const commit = committerOf(payload);
    const handler = this.runner.handlerFor(batch.topic);
    try {
      if (!handler) {
        if (batch.messages.length) resolveOffset(batch.messages[batch.messages.length - 1].offset);
      } else if (handler.extras?.[BATCH_EXTRA]) {
        for (let from = 0; from < batch.messages.length; from += MAX_BATCH_MESSAGES) {
          if (!batchGoesOn(payload, this.closing())) break;
          const messages = batch.messages.slice(from, from + MAX_BATCH_MESSAGES);
          await this.consumeBatch(handler, batch, messages, payload);
          resolveOffset(messages[messages.length - 1].offset);
          await commit();
        }
      } else {
        for (const message of batch.messages) {
          if (!batchGoesOn(payload, this.closing())) break;
          await this.consumeOne(handler, batch, message, payload, false);
          resolveOffset(message.offset);
        }
      }
    } catch (error) {
      await commit().catch(() => undefined);
      throw error;
    }
    await commit();
  }

  /**
   * One call of a batch handler with the messages; if it throws, each message again on its own (with
   * retries and dead-lettering), so a bad message fails alone.
   */
  private async consumeBatch(handler: MessageHandler, batch: Batch, messages: KafkaMessage[], payload: EachBatchPayload): Promise<void> {
    if (messages.length === 1) return this.consumeOne(handler, batch, messages[0], payload, true);
    const parsed = messages.map((message) => ({ message, data: EventConsumer.parse(message) }));
    const good = parsed.filter((entry) => !(entry.data instanceof DomainError));
    try {
      if (good.length) {
        const context = new KafkaBatchContext([good.map(({ message }) => messageMeta(batch, message, 1))]);
        const values = good.map(({ data }) => data);
        await this.runner.run('event', batch.topic, handler, values, context, undefined);
      }
      for (const { message, data } of parsed)
        if (data instanceof DomainError) await this.consumeOne(handler, batch, message, payload, true);
    } catch (error) {
      this.logger.warn(
        `a batch of ${good.length} on ${batch.topic}[${batch.partition}] failed (${describeError(error)}); handling ` +
          `its messages one by one`,
      );
      for (const message of messages) {
        if (!batchGoesOn(payload, this.closing())) throw error;
        await this.consumeOne(handler, batch, message, payload, true);
      }
    }
  }

  /** A message's value as JSON, or the validation error that sends it to the dead-letter topic. */
  private static parse(message: KafkaMessage): unknown {
    try {
      return JSON.parse(message.value?.toString() ?? '');
    } catch {
      return new DomainError(ErrorCode.Validation, 'the message value is not JSON');
    }
  }

  /**
   * One message, with retries and then the dead-letter topic. `asBatch`: the handler is a batch handler,
   * given a batch of one.
   */
  private consumeOne(
    handler: MessageHandler,
    batch: Batch,
    message: KafkaMessage,
    payload: EachBatchPayload,
    asBatch: boolean,
  ): Promise<void> {
    const headers = decodeHeaders(message.headers);
    return runWithRequestId(headers[REQUEST_ID_KAFKA_HEADER], () =>
      this.consumeOneInContext(handler, batch, message, headers, payload, asBatch),
    );
  }

  private async consumeOneInContext(
    handler: MessageHandler,
    batch: Batch,
    message: KafkaMessage,
    headers: Record<string, string>,
    { heartbeat }: EachBatchPayload,
    asBatch: boolean,
  ): Promise<void> {
    const { topic, partition } = batch;
    let lastError: unknown;
    let attempts = 0;
    // Tries that failed for the message's own sake: a dependency that cannot be reached (the database
    // restarting, a connection reset) is not the message's fault, and dead-lettering it would take it
    // away from the group for good, so such tries are not counted: the message waits for the dependency.
    let failures = 0;
    for (let attempt = 1; ; attempt++) {
      attempts = attempt;
      try {
        const data = EventConsumer.parse(message);
        if (data instanceof DomainError) throw data;
        const meta = messageMeta(batch, message, attempt, headers);
        const context = asBatch ? new KafkaBatchContext([[meta]]) : new KafkaMessageContext([meta]);
        await this.runner.run('event', topic, handler, asBatch ? [data] : data, context, undefined);
        return;
      } catch (error) {
        lastError = error;
        const unreachable = isConnectionLoss(error);
        if (!unreachable) failures++;
        if (isPoison(error) || failures >= this.options.maxAttempts || this.closing()) break;
        if (unreachable && attempt === 1)
          this.logger.warn(`${topic}[${partition}]@${message.offset} waits for a dependency: ${describeError(error)}`);
        await new Promise((r) => setTimeout(r, Math.min(this.options.retryBackoffMs * 2 ** (attempt - 1), MAX_RETRY_BACKOFF_MS)));
        await heartbeat();
      }
    }
    if (this.closing() && !isPoison(lastError)) {
      // Shutting down: leave the message uncommitted so the next instance tries it again.
      throw lastError;
    }
    await this.deadLetter(batch, message, headers, lastError, attempts);
  }

  private async deadLetter(
    batch: Batch,
    message: KafkaMessage,
    headers: Record<string, string>,
    error: unknown,
    attempts: number,
  ): Promise<void> {
    const { topic, partition } = batch;
    const reason = describeError(error);
    this.logger.warn(`dead-lettering ${topic}[${partition}]@${message.offset}: ${reason}`);
    // If this send fails, the handler throws and kafkajs redelivers the message: it is never dropped.
    await this.producer.send(Topic.DeadLetter, [
      {
        key: message.key?.toString() ?? null,
        value: message.value ?? '',
        headers: deadLetterHeaders(
          { app: this.options.app, originalTopic: topic, value: message.value ?? '', headers },
          {
            'dlq-original-partition': String(partition),
            'dlq-original-offset': message.offset,
            'dlq-consumer-group': this.options.groupId,
            'dlq-error': reason,
            'dlq-attempts': String(attempts),
          },
        ),
      },
    ]);
  }
}
