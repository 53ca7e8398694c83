import { Logger } from '@nestjs/common';
import { BaseRpcContext, type CustomTransportStrategy, Server } from '@nestjs/microservices';
import { DomainError, ErrorCode, isErrorBody, RpcPattern, Topic, type ErrorBody } from '@workline/contracts';
import { type AppMetrics, REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { Admin, Consumer, EachMessagePayload, IHeaders } from 'kafkajs';
import type { Histogram } from 'prom-client';
import { lastValueFrom } from 'rxjs';
import { consumerGroupOf, consumerTimeouts, createKafka, type KafkaSettings } from './kafka.settings';
import { KafkaProducer } from './producer';
import { RpcHeader, type RpcReply, type RpcRequest } from './rpc.protocol';

export interface KafkaMessageMeta {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  headers: Record<string, string>;
  /** 1 on the first try of this message by this consumer, then 2, 3, ... */
  attempt: number;
}

/** The context a handler can take with `@Ctx()`: where the message came from and which try this is. */
export class KafkaMessageContext extends BaseRpcContext<[KafkaMessageMeta]> {
  get meta(): KafkaMessageMeta {
    return this.args[0];
  }
}

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
  /** Where to publish handler durations and consumer lag. */
  metrics?: AppMetrics;
}

export function decodeHeaders(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (value === undefined) continue;
    out[name] = Array.isArray(value) ? String(value[0]) : String(value);
  }
  return out;
}

/** The error an RPC caller sees: domain errors keep their code; anything else is INTERNAL. */
export function toErrorBody(error: unknown): ErrorBody {
  if (error instanceof DomainError) return error.toBody();
  if (isErrorBody(error)) return error;
  return { code: ErrorCode.Internal, message: 'Internal error' };
}

/** Why a message failed, for logs and dead-letter headers (not for RPC callers: see toErrorBody). */
export function describeError(error: unknown): string {
  if (error instanceof DomainError || isErrorBody(error)) return `${error.code}: ${error.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** Validation failures can never succeed on retry: they go to the dead-letter topic at once. */
const isPoison = (error: unknown) => toErrorBody(error).code === ErrorCode.Validation;

/**
 * Nest microservice transport over Kafka (kafkajs underneath, kept inside this library).
 *
 * - `@MessagePattern(RpcPattern.X)` handlers answer request-reply messages on the service's RPC topic;
 *   several requests run at once, and a request whose caller has given up is dropped.
 * - `@EventPattern(Topic.X)` handlers consume that topic in the app's consumer group. A handler that
 *   throws is retried with exponential backoff, at most `maxAttempts` tries, then the message goes
 *   to the dead-letter topic with the reason in headers, so one poison message never blocks its partition.
 */
export class KafkaTransport extends Server implements CustomTransportStrategy {
  protected override readonly logger = new Logger(KafkaTransport.name);
  private consumer?: Consumer;
  private readonly producer: KafkaProducer;
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxAttempts: number;
  private readonly retryBackoffMs: number;
  private readonly maxConcurrentRequests: number;
  private closing = false;
  private closed?: Promise<void>;
  private joined = false;
  private admin?: Admin;
  private topics: string[] = [];
  private readonly handlerDuration?: Histogram<'kind' | 'pattern' | 'outcome'>;

  constructor(private readonly options: KafkaTransportOptions) {
    super();
    this.producer = new KafkaProducer(options.settings);
    this.maxAttempts = options.maxAttempts ?? 5;
    this.retryBackoffMs = options.retryBackoffMs ?? 200;
    this.maxConcurrentRequests = options.maxConcurrentRequests ?? 64;
    this.handlerDuration = options.metrics?.histogram(
      'kafka_handler_duration_seconds',
      'Time a handler took for one message: kind rpc (request-reply) or event, the pattern or topic, outcome ok or error (an event counts each try)',
      ['kind', 'pattern', 'outcome'],
    );
  }

  private get groupId(): string {
    return this.options.groupId ?? consumerGroupOf(this.options.settings.app);
  }

  /** Readiness: undefined once the consumer has joined its group and while it consumes; else why not. */
  consumerProblem(): string | undefined {
    if (this.closing) return 'shutting down';
    if (!this.consumer) return this.topics.length ? 'not started' : undefined;
    return this.joined ? undefined : `consumer not in group ${this.groupId}`;
  }

  listen(callback: (error?: unknown) => void): void {
    this.start().then(
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
    const kafka = createKafka(this.options.settings);
    this.consumer = kafka.consumer({
      groupId: this.groupId,
      ...consumerTimeouts(this.options.settings),
      allowAutoTopicCreation: false,
    });
    const { GROUP_JOIN, CRASH, STOP, DISCONNECT, REBALANCING } = this.consumer.events;
    this.consumer.on(GROUP_JOIN, () => (this.joined = true));
    for (const event of [CRASH, STOP, DISCONNECT, REBALANCING]) this.consumer.on(event, () => (this.joined = false));
    this.admin = kafka.admin();
    this.options.metrics?.gauge('kafka_consumer_lag', 'Messages not yet consumed by the group: high watermark minus committed offset, per topic and partition', ['group', 'topic', 'partition'], () => this.lag());
    await this.consumer.connect();
    await this.consumer.subscribe({ topics, fromBeginning: true });
    await this.consumer.run({
      partitionsConsumedConcurrently: 3,
      eachMessage: (payload) => this.onMessage(payload),
    });
  }

  private async onMessage(payload: EachMessagePayload): Promise<void> {
    if (payload.topic === this.options.rpcTopic) {
      // Requests are independent: answer them concurrently. Losing one in a crash only makes its caller
      // time out (no 2xx was given), so its offset may be committed before the answer is sent.
      while (this.inFlight.size >= this.maxConcurrentRequests) await Promise.race(this.inFlight);
      const task = this.answerRequest(payload).finally(() => this.inFlight.delete(task));
      this.inFlight.add(task);
      return;
    }
    await this.consumeEvent(payload);
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
      if (pattern !== RpcPattern.Health) this.logger.log({ msg: `${kind} ${pattern} handled`, kind, pattern, outcome: 'ok', duration_ms: Date.now() - started });
      return result;
    } catch (error) {
      stop?.({ outcome: 'error' });
      this.logger.log({ msg: `${kind} ${pattern} failed: ${describeError(error)}`, kind, pattern, outcome: 'error', duration_ms: Date.now() - started });
      throw error;
    }
  }

  private answerRequest(payload: EachMessagePayload): Promise<void> {
    return runWithRequestId(decodeHeaders(payload.message.headers)[REQUEST_ID_KAFKA_HEADER], () => this.answerRequestInContext(payload));
  }

  private async answerRequestInContext({ topic, partition, message }: EachMessagePayload): Promise<void> {
    const headers = decodeHeaders(message.headers);
    const correlationId = headers[RpcHeader.CorrelationId];
    const replyTopic = headers[RpcHeader.ReplyTopic];
    const deadline = Number(headers[RpcHeader.Deadline] ?? 0);
    if (!correlationId || !replyTopic) {
      this.logger.warn(`dropping a request without ${RpcHeader.CorrelationId}/${RpcHeader.ReplyTopic} at ${topic}[${partition}]@${message.offset}`);
      return;
    }
    if (deadline && Date.now() > deadline) return;

    let reply: RpcReply;
    try {
      const request = JSON.parse(message.value?.toString() ?? '') as RpcRequest;
      const handler = this.getHandlerByPattern(request.pattern);
      if (!handler || handler.isEventHandler) throw DomainError.notFound(`no handler for "${request.pattern}"`);
      const context = new KafkaMessageContext([{ topic, partition, offset: message.offset, key: message.key?.toString() ?? null, headers, attempt: 1 }]);
      const result = await this.timed('rpc', request.pattern, async () =>
        lastValueFrom(this.transformToObservable(await handler(request.data, context)), { defaultValue: null }),
      );
      reply = { ok: true, data: result ?? null };
    } catch (error) {
      const body = toErrorBody(error);
      if (body.code === ErrorCode.Internal) this.logger.error(`request on ${topic} failed`, error instanceof Error ? error.stack : String(error));
      reply = { ok: false, error: body };
    }
    try {
      await this.producer.send(replyTopic, [{ key: correlationId, value: reply, headers: { [RpcHeader.CorrelationId]: correlationId } }]);
    } catch (error) {
      this.logger.error(`could not send the reply to ${replyTopic}: ${String(error)}`);
    }
  }

  private consumeEvent(payload: EachMessagePayload): Promise<void> {
    return runWithRequestId(decodeHeaders(payload.message.headers)[REQUEST_ID_KAFKA_HEADER], () => this.consumeEventInContext(payload));
  }

  private async consumeEventInContext({ topic, partition, message, heartbeat }: EachMessagePayload): Promise<void> {
    const handler = this.getHandlerByPattern(topic);
    if (!handler) return;
    const headers = decodeHeaders(message.headers);
    let lastError: unknown;
    let attempts = 0;
    for (let attempt = 1; attempt <= this.maxAttempts; attempt++) {
      attempts = attempt;
      try {
        let data: unknown;
        try {
          data = JSON.parse(message.value?.toString() ?? '');
        } catch {
          throw new DomainError(ErrorCode.Validation, 'the message value is not JSON');
        }
        const context = new KafkaMessageContext([{ topic, partition, offset: message.offset, key: message.key?.toString() ?? null, headers, attempt }]);
        await this.timed('event', topic, async () => lastValueFrom(this.transformToObservable(await handler(data, context)), { defaultValue: undefined }));
        return;
      } catch (error) {
        lastError = error;
        if (isPoison(error) || attempt === this.maxAttempts || this.closing) break;
        await new Promise((r) => setTimeout(r, this.retryBackoffMs * 2 ** (attempt - 1)));
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
   * Graceful stop: no new messages are fetched; the handlers under way finish (kafkajs waits for them
   * when the consumer disconnects) and their offsets are committed; the requests being answered send
   * their replies; then the producer flushes and disconnects. Safe to call twice.
   */
  close(): Promise<void> {
    this.closed ??= (async () => {
      this.closing = true;
      await this.consumer?.disconnect().catch(() => undefined);
      await Promise.allSettled([...this.inFlight]);
      await this.producer.onApplicationShutdown();
      await this.admin?.disconnect().catch(() => undefined);
    })();
    return this.closed;
  }

  on(): void {
    throw new Error('KafkaTransport does not emit events');
  }

  unwrap<T>(): T {
    return this.consumer as T;
  }
}
