import { Logger } from '@nestjs/common';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { DomainError, ErrorCode, RpcPattern, Topic } from '@workline/contracts';
import { isConnectionLoss } from '@workline/db';
import { type AppMetrics, REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { Admin, Batch, Consumer, EachBatchPayload, KafkaMessage } from 'kafkajs';
import type { Counter, Histogram } from 'prom-client';
import { lastValueFrom } from 'rxjs';
import { CONSUMER_STALL_MS, ConsumerStallWatch, replaceStuckConsumer } from './consumer-stall-watch';
import { consumerGroupOf, consumerTimeouts, createKafka, type KafkaSettings } from './kafka.settings';
import { BATCH_EXTRA, IDEMPOTENT_EXTRA, KafkaBatchContext, KafkaMessageContext, type KafkaMessageMeta } from './message-context';
import { decodeHeaders, describeError, isPoison, toErrorBody } from './message-errors';
import { KafkaProducer, MessageTooLargeError, settledWithin } from './producer';
import { RpcHeader, type RpcReply, type RpcRequest } from './rpc.protocol';

/** Bounds of the stages of close() (see there). */
const CLOSE_CONSUMER_MS = 10_000;
const CLOSE_IN_FLIGHT_MS = 5_000;
const CLOSE_ADMIN_MS = 2_000;
const CLOSE_COMMIT_MS = 2_000;
/** Longest pause between two tries of an event handler (one waiting for an unreachable dependency keeps trying). */
const MAX_RETRY_BACKOFF_MS = 5_000;

/** Most messages handed to one batch handler call. */
const MAX_BATCH_MESSAGES = 1000;

/** Default of KafkaTransportOptions.rpcCommitDelayMs. */
const RPC_COMMIT_DELAY_MS = 50;

export interface KafkaTransportOptions {
  settings: KafkaSettings;
  /** The topic on which this service answers request-reply (see SERVICE_RPC_TOPIC). */
  rpcTopic?: string;
  /** Tries of an event handler before the message goes to the dead-letter topic. Default 5. */
  maxAttempts?: number;
  /** Wait after the first failed try; doubles each time. Default 200 ms. */
  retryBackoffMs?: number;
  /** Consumer group; defaults to the app's (`workline-<app>`). */
  groupId?: string;
  /** Request-reply messages handled at once by one instance. Default 64. */
  maxConcurrentRequests?: number;
  /**
   * How long the offset of a started `@IdempotentPattern` request may wait to be committed with those started
   * after it (one offset commit for all of them; at once on a rebalance, on close, and when any other
   * request starts). Default 50 ms.
   */
  rpcCommitDelayMs?: number;
  /** Where to publish handler durations and consumer lag. */
  metrics?: AppMetrics;
  /**
   * Silence (no Kafka answer, no batch, no crash of its own) after which the consumer is replaced by a new
   * one with new connections (ConsumerStallWatch). Default 90 s.
   */
  consumerStallMs?: number;
}

/**
 * Nest microservice transport over Kafka (kafkajs underneath, kept inside this library).
 *
 * - `@MessagePattern(RpcPattern.X)` handlers answer request-reply messages on the service's RPC topic;
 *   several requests run at once, and a request whose caller has given up is dropped.
 * - `@EventPattern(Topic.X)` handlers consume that topic in the app's consumer group. A handler that
 *   throws is retried with exponential backoff, at most `maxAttempts` tries, then the message goes
 *   to the dead-letter topic with the reason in headers, so one poison message never blocks its partition.
 *   A try that failed because a dependency could not be reached (libs/db `isConnectionLoss`: PostgreSQL
 *   restarting, a connection refused or reset) does not count: the message waits for it, its partition
 *   behind it, as long as it takes (pauses up to 5 s), instead of being dead-lettered by an outage.
 *   `@EventBatchPattern(Topic.X)` handlers take a partition's drained batch at once.
 *
 * Consumption is by batch (kafkajs `eachBatch`): what queued on a partition while the last batch was
 * handled is taken at once, with no wait to fill a batch (an idle service handles a lone message as soon
 * as it is fetched). The requests of a batch all start in one turn of the event loop, so a group commit
 * (libs/db `Batcher`) puts their writes in one transaction, and their replies, ready together, leave in
 * one produce request (the producer merges the sends of a turn). Event offsets are committed only once
 * their handler has finished (docs/decisions.md, "Batched Kafka hops").
 */
export class KafkaTransport extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(KafkaTransport.name);
  private consumer?: Consumer;
  private readonly producer: KafkaProducer;
  private readonly inFlight = new Set<Promise<void>>();
  /**
   * Handlers by pattern string. Nest's getHandlerByPattern normalises every pattern (a JSON.parse attempt in
   * a try/catch) on every message; the profile of a loaded service had it at 3 % of its CPU.
   */
  private readonly handlersByPattern = new Map<string, MessageHandler>();
  private readonly maxAttempts: number;
  private readonly retryBackoffMs: number;
  private readonly maxConcurrentRequests: number;
  private readonly rpcCommitDelayMs: number;
  /** The latest batch's committerOf: commits survive the batch, as kafkajs keeps one offset book per consumer. */
  private commitResolved?: () => Promise<void>;
  private rpcCommitTimer?: NodeJS.Timeout;
  private commitInFlight?: Promise<void>;
  private commitAgain = false;
  /** Set when a request that must not run twice started: its batch's offsets are committed at once. */
  private unsafeToReplayStarted = false;
  private closing = false;
  private closed?: Promise<void>;
  private joined = false;
  private admin?: Admin;
  private topics: string[] = [];
  private starting?: Promise<void>;
  private joinedOnce?: Promise<void>;
  private readonly handlerDuration?: Histogram<'kind' | 'pattern' | 'outcome'>;
  private stallWatch?: ConsumerStallWatch;
  /** Consumers replaced after a stall, since start (also the metric kafka_consumer_replacements_total). */
  consumerReplacements = 0;
  private readonly replacementCounter?: Counter<'group'>;

  override getHandlerByPattern(pattern: string): MessageHandler | null {
    const known = this.handlersByPattern.get(pattern);
    if (known) return known;
    const handler = super.getHandlerByPattern(pattern);
    // Only hits are kept: handlers are all registered before listen, and unknown patterns must not grow the map.
    if (handler) this.handlersByPattern.set(pattern, handler);
    return handler;
  }

  constructor(private readonly options: KafkaTransportOptions) {
    super();
    this.producer = new KafkaProducer(options.settings);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBackoffMs = options.retryBackoffMs ?? 200;
    this.maxConcurrentRequests = options.maxConcurrentRequests ?? 64;
    this.rpcCommitDelayMs = options.rpcCommitDelayMs ?? RPC_COMMIT_DELAY_MS;
    this.handlerDuration = options.metrics?.histogram(
      'kafka_handler_duration_seconds',
      'Time a handler took for one message: kind rpc (request-reply) or event, the pattern or topic, outcome ok or error (an event counts each try)',
      ['kind', 'pattern', 'outcome'],
    );
    this.replacementCounter = options.metrics?.counter(
      'kafka_consumer_replacements_total',
      'Consumers replaced by a new one on new connections after a silence (no answer from Kafka, no batch) of consumerStallMs',
      ['group'],
    );
  }

  private get groupId(): string {
    return this.options.groupId ?? consumerGroupOf(this.options.settings.app);
  }

  /** Readiness: undefined once the consumer has joined its group and while it consumes; else why not. */
  consumerProblem(): string | undefined {
    if (this.closing) return 'shutting down';
    if (this.stallWatch?.replacement) return `consumer of group ${this.groupId} being replaced after a stall`;
    if (!this.consumer) return this.topics.length ? 'not started' : undefined;
    return this.joined ? undefined : `consumer not in group ${this.groupId}`;
  }

  listen(callback: (error?: unknown) => void): void {
    this.starting = this.start();
    this.starting.then(
      () => callback(),
      (error: unknown) => callback(error),
    );
  }

  private async start(): Promise<void> {
    const handlers = [...this.messageHandlers.entries()];
    const eventTopics = handlers.filter(([, h]) => h.isEventHandler).map(([pattern]) => pattern);
    const hasRpc = handlers.some(([, h]) => !h.isEventHandler);
    const topics = [...eventTopics, ...(hasRpc && this.options.rpcTopic ? [this.options.rpcTopic] : [])];
    this.topics = topics;
    if (!topics.length) return;

    await this.producer.connect();
    this.admin = createKafka(this.options.settings).admin();
    this.options.metrics?.gauge(
      'kafka_consumer_lag',
      'Messages not yet consumed by the group: high watermark minus committed offset, per topic and partition',
      ['group', 'topic', 'partition'],
      () => this.lag(),
    );
    this.stallWatch = new ConsumerStallWatch(this.options.consumerStallMs ?? CONSUMER_STALL_MS, Date.now());
    await this.startConsumer();
    this.stallWatch.start((silentMs) => this.replaceConsumer(silentMs));
  }

  /** A consumer on a kafkajs client of its own (its own connections), subscribed to the topics and running. */
  private async startConsumer(): Promise<void> {
    const consumer = createKafka(this.options.settings).consumer({
      groupId: this.groupId,
      ...consumerTimeouts(this.options.settings),
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    this.joined = false;
    const { GROUP_JOIN, CRASH, STOP, DISCONNECT, REBALANCING } = consumer.events;
    const current = () => this.consumer === consumer;
    this.joinedOnce = new Promise<void>((resolve) => consumer.on(GROUP_JOIN, () => resolve()));
    consumer.on(GROUP_JOIN, () => {
      if (current()) this.joined = true;
    });
    for (const event of [CRASH, STOP, DISCONNECT, REBALANCING])
      consumer.on(event, () => {
        if (current()) this.joined = false;
      });
    // The partitions may move: commit the requests already started, so their next owner does not start them again.
    consumer.on(REBALANCING, () => {
      if (current()) void this.commitStartedRequests();
    });
    this.stallWatch?.follow(consumer, current);
    await consumer.connect();
    await consumer.subscribe({ topics: this.topics, fromBeginning: true });
    await consumer.run({
      partitionsConsumedConcurrently: 3,
      // kafkajs would commit after every batch, RPC batches included: on a loaded service that was one
      // offset commit per few requests, the broker's largest cost per request (docs/benchmarks.md). Event
      // batches commit when their handler is done, RPC offsets a little later, together (see below).
      autoCommit: false,
      // An offset is resolved by hand once its message is done: a batch cut short (shutdown, rebalance)
      // leaves the rest to be fetched again.
      eachBatchAutoResolve: false,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  /**
   * Replaces a consumer that has been silent for `silentMs` (ConsumerStallWatch) with a new one on new
   * connections. The old one is asked to leave its group, bounded: its connections may be the stuck part.
   * The offsets of RPC requests it started and did not commit go unanswered to the group again, as after a
   * crash (docs/decisions.md); no event batch is under way (the watch waits for them).
   */
  private async replaceConsumer(silentMs: number): Promise<void> {
    if (this.closing) return;
    this.consumerReplacements++;
    this.replacementCounter?.inc({ group: this.groupId });
    const stuck = this.consumer;
    this.consumer = undefined;
    this.joined = false;
    this.commitResolved = undefined;
    await replaceStuckConsumer({
      what: `consumer of group ${this.groupId}`,
      silentMs,
      stuck,
      logger: this.logger,
      stopping: () => this.closing,
      startNew: () => this.startConsumer(),
    });
  }

  private async onBatch(payload: EachBatchPayload): Promise<void> {
    // kafkajs heartbeats between batches only: a long batch (or a slow handler) keeps the session alive
    // with these (heartbeat() sends at most one per heartbeatInterval).
    const { heartbeatInterval } = consumerTimeouts(this.options.settings);
    const beating = setInterval(() => void payload.heartbeat().catch(() => undefined), heartbeatInterval);
    this.commitResolved = KafkaTransport.committerOf(payload);
    this.stallWatch?.batchStarted(Date.now());
    try {
      if (payload.batch.topic === this.options.rpcTopic) await this.dispatchRequests(payload);
      else await this.consumeEvents(payload);
    } finally {
      clearInterval(beating);
      this.stallWatch?.batchEnded(Date.now());
    }
  }

  /** Commits every offset resolved and not yet committed, on any partition of the consumer (kafkajs' bookkeeping). */
  private static committerOf(payload: EachBatchPayload): () => Promise<void> {
    return () => payload.commitOffsetsIfNecessary(payload.uncommittedOffsets());
  }

  /** True while the batch may go on: the consumer runs, no seek or rebalance made it stale, not closing. */
  private static goingOn({ isRunning, isStale }: EachBatchPayload, closing: boolean): boolean {
    return isRunning() && !isStale() && !closing;
  }

  /**
   * Starts every request of the batch (at most maxConcurrentRequests under way) and returns: the next batch
   * is fetched while these run. Requests are independent; losing one in a crash only makes its caller time
   * out (no 2xx was given), so a request's offset may be committed once it has started: at once, or for
   * an `@IdempotentPattern` request with the others started within rpcCommitDelayMs, in one commit
   * (docs/decisions.md, "RPC topics").
   */
  private async dispatchRequests(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset } = payload;
    try {
      for (const message of batch.messages) {
        if (!KafkaTransport.goingOn(payload, this.closing)) return;
        while (this.inFlight.size >= this.maxConcurrentRequests) await Promise.race(this.inFlight);
        if (!KafkaTransport.goingOn(payload, this.closing)) return;
        const task = this.answerRequest(batch, message).finally(() => this.inFlight.delete(task));
        this.inFlight.add(task);
        resolveOffset(message.offset);
      }
    } finally {
      if (this.unsafeToReplayStarted) {
        this.unsafeToReplayStarted = false;
        void this.commitStartedRequests();
      } else this.scheduleRequestCommit();
    }
  }

  private scheduleRequestCommit(): void {
    if (this.rpcCommitTimer || this.closing) return;
    this.rpcCommitTimer = setTimeout(() => void this.commitStartedRequests(), this.rpcCommitDelayMs);
  }

  /**
   * Commits the offsets of the requests started so far (and of any event already handled); one commit at a
   * time, and one more right after it when asked meanwhile. What a failed commit (a rebalance under way, a
   * broker restarting) leaves uncommitted goes with the next commit, and is at worst started again by the
   * partition's next owner, if its caller still waits (docs/decisions.md). Not retried on a timer: after
   * a consumer restart the failing commit would be the old consumer's, for ever.
   */
  private commitStartedRequests(): Promise<void> {
    clearTimeout(this.rpcCommitTimer);
    this.rpcCommitTimer = undefined;
    if (this.commitInFlight) {
      this.commitAgain = true;
      return this.commitInFlight;
    }
    this.commitInFlight = (async () => {
      try {
        do {
          this.commitAgain = false;
          await this.commitResolved?.();
        } while (this.commitAgain);
      } catch (error) {
        this.logger.debug(`could not commit the offsets of started requests (${describeError(error)}); they go with the next commit`);
      } finally {
        this.commitInFlight = undefined;
      }
    })();
    return this.commitInFlight;
  }

  /**
   * A partition's batch of an event topic: offsets resolved only once handled, and committed after each
   * batch handler call, or once the batch is done. A batch that throws still commits what it finished.
   */
  private async consumeEvents(payload: EachBatchPayload): Promise<void> {
    const { batch, resolveOffset } = payload;
    const commit = KafkaTransport.committerOf(payload);
    const handler = this.getHandlerByPattern(batch.topic);
    try {
      if (!handler) {
        if (batch.messages.length) resolveOffset(batch.messages[batch.messages.length - 1].offset);
      } else if (handler.extras?.[BATCH_EXTRA]) {
        for (let from = 0; from < batch.messages.length; from += MAX_BATCH_MESSAGES) {
          if (!KafkaTransport.goingOn(payload, this.closing)) break;
          const messages = batch.messages.slice(from, from + MAX_BATCH_MESSAGES);
          await this.consumeEventBatch(handler, batch, messages, payload);
          resolveOffset(messages[messages.length - 1].offset);
          await commit();
        }
      } else {
        for (const message of batch.messages) {
          if (!KafkaTransport.goingOn(payload, this.closing)) break;
          await this.consumeEvent(handler, batch, message, payload, false);
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
  private async consumeEventBatch(
    handler: MessageHandler,
    batch: Batch,
    messages: KafkaMessage[],
    payload: EachBatchPayload,
  ): Promise<void> {
    if (messages.length === 1) return this.consumeEvent(handler, batch, messages[0], payload, true);
    const parsed = messages.map((message) => ({ message, data: KafkaTransport.parse(message) }));
    const good = parsed.filter((entry) => !(entry.data instanceof DomainError));
    try {
      if (good.length) {
        const context = new KafkaBatchContext([good.map(({ message }) => this.metaOf(batch, message, 1))]);
        await this.timed('event', batch.topic, async () =>
          lastValueFrom(
            this.transformToObservable(
              await handler(
                good.map(({ data }) => data),
                context,
              ),
            ),
            { defaultValue: undefined },
          ),
        );
      }
      for (const { message, data } of parsed)
        if (data instanceof DomainError) await this.consumeEvent(handler, batch, message, payload, true);
    } catch (error) {
      this.logger.warn(
        `a batch of ${good.length} on ${batch.topic}[${batch.partition}] failed (${describeError(error)}); handling its messages one by one`,
      );
      for (const message of messages) {
        if (!KafkaTransport.goingOn(payload, this.closing)) throw error;
        await this.consumeEvent(handler, batch, message, payload, true);
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

  private metaOf(batch: Batch, message: KafkaMessage, attempt: number, headers = decodeHeaders(message.headers)): KafkaMessageMeta {
    return {
      topic: batch.topic,
      partition: batch.partition,
      offset: message.offset,
      key: message.key?.toString() ?? null,
      headers,
      attempt,
    };
  }

  /** Consumer lag of this app's group on the topics it consumes (read from Kafka when scraped). */
  private async lag(): Promise<{ labels: { group: string; topic: string; partition: number }; value: number }[]> {
    if (!this.admin || this.closing) return [];
    await this.admin.connect();
    const committed = await this.admin.fetchOffsets({ groupId: this.groupId, topics: this.topics });
    const samples = [];
    for (const { topic, partitions } of committed) {
      const ends = new Map((await this.admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p] as const));
      for (const { partition, offset } of partitions) {
        const end = ends.get(partition);
        if (!end) continue;
        const from = Number(offset) >= 0 ? Number(offset) : Number(end.low);
        samples.push({ labels: { group: this.groupId, topic, partition }, value: Math.max(0, Number(end.high) - from) });
      }
    }
    return samples;
  }

  /** Runs a handler under the request id of its message, timing it and logging the outcome. */
  private async timed<T>(kind: 'rpc' | 'event', pattern: string, work: () => Promise<T>): Promise<T> {
    const stop = this.handlerDuration?.startTimer({ kind, pattern });
    const started = Date.now();
    try {
      const result = await work();
      stop?.({ outcome: 'ok' });
      if (pattern !== RpcPattern.Health)
        this.logger.log({ msg: `${kind} ${pattern} handled`, kind, pattern, outcome: 'ok', duration_ms: Date.now() - started });
      return result;
    } catch (error) {
      stop?.({ outcome: 'error' });
      this.logger.log({
        msg: `${kind} ${pattern} failed: ${describeError(error)}`,
        kind,
        pattern,
        outcome: 'error',
        duration_ms: Date.now() - started,
      });
      throw error;
    }
  }

  private answerRequest(batch: Batch, message: KafkaMessage): Promise<void> {
    // Decoded once: the request id, the RPC headers and the handler's context all read them.
    const headers = decodeHeaders(message.headers);
    return runWithRequestId(headers[REQUEST_ID_KAFKA_HEADER], () => this.answerRequestInContext(batch, message, headers));
  }

  private async answerRequestInContext(batch: Batch, message: KafkaMessage, headers: Record<string, string>): Promise<void> {
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
      const handler = this.getHandlerByPattern(request.pattern);
      if (!handler || handler.isEventHandler) throw DomainError.notFound(`no handler for "${request.pattern}"`);
      // Still in the turn that dispatchRequests started this request in (nothing above awaits), so its
      // batch's offsets are committed at once.
      if (!handler.extras?.[IDEMPOTENT_EXTRA]) this.unsafeToReplayStarted = true;
      const context = new KafkaMessageContext([{ ...this.metaOf(batch, message, 1, headers), correlationId }]);
      const result = await this.timed('rpc', request.pattern, async () =>
        lastValueFrom(this.transformToObservable(await handler(request.data, context)), { defaultValue: null }),
      );
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

  /**
   * One message, with retries and then the dead-letter topic. `asBatch`: the handler is a batch handler,
   * given a batch of one.
   */
  private consumeEvent(
    handler: MessageHandler,
    batch: Batch,
    message: KafkaMessage,
    payload: EachBatchPayload,
    asBatch: boolean,
  ): Promise<void> {
    const headers = decodeHeaders(message.headers);
    return runWithRequestId(headers[REQUEST_ID_KAFKA_HEADER], () =>
      this.consumeEventInContext(handler, batch, message, headers, payload, asBatch),
    );
  }

  private async consumeEventInContext(
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
        const data = KafkaTransport.parse(message);
        if (data instanceof DomainError) throw data;
        const meta = this.metaOf(batch, message, attempt, headers);
        const context = asBatch ? new KafkaBatchContext([[meta]]) : new KafkaMessageContext([meta]);
        await this.timed('event', topic, async () =>
          lastValueFrom(this.transformToObservable(await handler(asBatch ? [data] : data, context)), { defaultValue: undefined }),
        );
        return;
      } catch (error) {
        lastError = error;
        const unreachable = isConnectionLoss(error);
        if (!unreachable) failures++;
        if (isPoison(error) || failures >= this.maxAttempts || this.closing) break;
        if (unreachable && attempt === 1)
          this.logger.warn(`${topic}[${partition}]@${message.offset} waits for a dependency: ${describeError(error)}`);
        await new Promise((r) => setTimeout(r, Math.min(this.retryBackoffMs * 2 ** (attempt - 1), MAX_RETRY_BACKOFF_MS)));
        await heartbeat();
      }
    }
    if (this.closing && !isPoison(lastError)) {
      // Shutting down: leave the message uncommitted so the next instance tries it again.
      throw lastError;
    }
    const reason = describeError(lastError);
    this.logger.warn(`dead-lettering ${topic}[${partition}]@${message.offset}: ${reason}`);
    // If this send fails, the handler throws and kafkajs redelivers the message: it is never dropped.
    await this.producer.send(Topic.DeadLetter, [
      {
        key: message.key?.toString() ?? null,
        value: message.value ?? '',
        headers: {
          ...headers,
          'dlq-original-topic': topic,
          'dlq-original-partition': String(partition),
          'dlq-original-offset': message.offset,
          'dlq-consumer-group': this.groupId,
          'dlq-error': reason.slice(0, 1000),
          'dlq-attempts': String(attempts),
          'dlq-failed-at': new Date().toISOString(),
        },
      },
    ]);
  }

  /**
   * Graceful stop: no new request starts and the offsets of those started are committed; no new messages
   * are fetched; the event handlers under way finish (kafkajs waits for them when the consumer disconnects)
   * and commit their offsets; the requests being answered send their replies; then the producer flushes
   * and disconnects. Safe to call twice.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      this.stallWatch?.stop();
      await this.bounded('consumer replacement', CLOSE_CONSUMER_MS, this.stallWatch?.replacement);
      // A consumer still joining its group when asked to close: disconnecting it mid-join can leave its
      // member in the group until the session times out (its partitions idle meanwhile), so wait for the
      // join to end, then leave properly. Bounded: a broker that is down must not hold the shutdown.
      const joinEnded = (async () => {
        await this.starting?.catch(() => undefined);
        if (this.consumer && !this.joined) await this.joinedOnce;
      })();
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        joinEnded,
        new Promise((r) => (timer = setTimeout(r, Math.min(10_000, consumerTimeouts(this.options.settings).sessionTimeout)))),
      ]);
      clearTimeout(timer);
      // Each stage is bounded (their sum stays under the app's 60 s shutdown limit): a kafkajs client that lived
      // through a broker restart may never settle a disconnect or a flush (docs/operations.md, "Fault tests").
      // Giving up is safe: an event's offset is committed only after its handler finished, so what did not
      // finish is redelivered; a reply not sent makes its caller time out, never a lost 2xx.
      // Before leaving the group: the requests already started are not started again by the next owner.
      await this.bounded('committing the started requests', CLOSE_COMMIT_MS, this.commitStartedRequests());
      await this.bounded(
        'consumer disconnect',
        CLOSE_CONSUMER_MS,
        this.consumer?.disconnect().catch(() => undefined),
      );
      await this.bounded(`${this.inFlight.size} request(s) under way`, CLOSE_IN_FLIGHT_MS, Promise.allSettled([...this.inFlight]));
      await this.producer.onApplicationShutdown();
      await this.bounded(
        'admin disconnect',
        CLOSE_ADMIN_MS,
        this.admin?.disconnect().catch(() => undefined),
      );
    })();
    return this.closed;
  }

  /** Waits for `work` at most `ms`; past that, logs which stage of the stop did not finish and goes on. */
  private async bounded(stage: string, ms: number, work: Promise<unknown> | undefined): Promise<void> {
    if (!(await settledWithin(work, ms))) this.logger.warn(`closing: ${stage} did not finish within ${ms} ms; going on without it`);
  }

  on(): void {
    throw new Error('KafkaTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }
}
