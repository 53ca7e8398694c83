import { Logger } from '@nestjs/common';
import { type CustomTransportStrategy, type MessageHandler, Server } from '@nestjs/microservices';
import { consumerGroupOf } from '@workline/contracts';
import type { AppMetrics } from '@workline/observability';
import type { Admin, Consumer, EachBatchPayload } from 'kafkajs';
import type { Counter } from 'prom-client';
import { committerOf } from './consumer-batch';
import { consumerLag } from './consumer-lag';
import { CONSUMER_STALL_MS, ConsumerStallWatch, replaceStuckConsumer } from './consumer-stall-watch';
import { EventConsumer } from './event-consumer';
import { HandlerRunner } from './handler-runner';
import { consumerTimeouts, createKafka, type KafkaSettings } from './kafka.settings';
import { KafkaProducer } from './producer';
import { settledWithin } from './timeouts';
import { RpcRequestServer } from './rpc-server';

/** Bounds of the stages of close() (see there). */
const CLOSE_CONSUMER_MS = 10_000;
const CLOSE_IN_FLIGHT_MS = 5_000;
const CLOSE_ADMIN_MS = 2_000;
const CLOSE_COMMIT_MS = 2_000;
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
 *
 * This class owns the consumer's life (start, group membership, stall replacement, close) and routes each
 * batch: RPC topic batches to RpcRequestServer (rpc-server.ts), the others to EventConsumer
 * (event-consumer.ts, retries and dead letters); both call handlers through HandlerRunner (timing, logs).
 */
export class KafkaTransport extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(KafkaTransport.name);
  private consumer?: Consumer;
  private readonly producer: KafkaProducer;
  private readonly requests: RpcRequestServer;
  private readonly events: EventConsumer;
  /**
   * Handlers by pattern string. Nest's getHandlerByPattern normalises every pattern (a JSON.parse attempt in
   * a try/catch) on every message; the profile of a loaded service had it at 3 % of its CPU.
   */
  private readonly handlersByPattern = new Map<string, MessageHandler>();
  private closing = false;
  private closed?: Promise<void>;
  private joined = false;
  private admin?: Admin;
  private topics: string[] = [];
  private starting?: Promise<void>;
  private joinedOnce?: Promise<void>;
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
    const runner = new HandlerRunner(this, this.logger, options.metrics);
    const closing = () => this.closing;
    this.requests = new RpcRequestServer(
      runner,
      this.producer,
      this.logger,
      { maxConcurrentRequests: options.maxConcurrentRequests ?? 64, rpcCommitDelayMs: options.rpcCommitDelayMs ?? RPC_COMMIT_DELAY_MS },
      closing,
    );
    this.events = new EventConsumer(
      runner,
      this.producer,
      this.logger,
      {
        maxAttempts: options.maxAttempts ?? 5,
        retryBackoffMs: options.retryBackoffMs ?? 200,
        groupId: this.groupId,
        app: options.settings.app,
      },
      closing,
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
      async () => (this.admin && !this.closing ? consumerLag(this.admin, this.groupId, this.topics) : []),
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
      if (current()) void this.requests.commitStarted();
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
    this.requests.committer = undefined;
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
    this.requests.committer = committerOf(payload);
    this.stallWatch?.batchStarted(Date.now());
    try {
      if (payload.batch.topic === this.options.rpcTopic) await this.requests.dispatch(payload);
      else await this.events.consume(payload);
    } finally {
      clearInterval(beating);
      this.stallWatch?.batchEnded(Date.now());
    }
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
      await settledWithin(joinEnded, Math.min(10_000, consumerTimeouts(this.options.settings).sessionTimeout));
      // Each stage is bounded (their sum stays under the app's 60 s shutdown limit): a kafkajs client that lived
      // through a broker restart may never settle a disconnect or a flush (docs/operations.md, "Fault tests").
      // Giving up is safe: an event's offset is committed only after its handler finished, so what did not
      // finish is redelivered; a reply not sent makes its caller time out, never a lost 2xx.
      // Before leaving the group: the requests already started are not started again by the next owner.
      await this.bounded('committing the started requests', CLOSE_COMMIT_MS, this.requests.commitStarted());
      await this.bounded(
        'consumer disconnect',
        CLOSE_CONSUMER_MS,
        this.consumer?.disconnect().catch(() => undefined),
      );
      await this.bounded(`${this.requests.underWay} request(s) under way`, CLOSE_IN_FLIGHT_MS, this.requests.settled());
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
