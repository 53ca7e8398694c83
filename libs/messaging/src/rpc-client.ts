import { Injectable, Logger, type OnApplicationShutdown, type OnModuleInit } from '@nestjs/common';
import {
  consumerGroupOf,
  DomainError,
  ErrorCode,
  SERVICE_RPC_TOPIC,
  Topic,
  TOPIC_SPECS,
  type RpcPattern,
  type ServiceName,
} from '@workline/contracts';
import type { Consumer, KafkaMessage } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { CONSUMER_STALL_MS, ConsumerStallWatch, replaceStuckConsumer, STUCK_DISCONNECT_MS } from './consumer-stall-watch';
import { consumerTimeouts, createKafka, type KafkaSettings } from './kafka.settings';
import type { KafkaProducer } from './producer';
import { settledWithin } from './timeouts';
import { RpcHeader, type RpcReply } from './rpc.protocol';
import { decodeHeaders } from './message-errors';

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  timer: NodeJS.Timeout;
}

/** Raised when a service does not answer in time: it may be down, or Kafka may be. */
export class RpcTimeoutError extends DomainError {
  constructor(
    readonly service: ServiceName | string,
    timeoutMs: number,
  ) {
    super(ErrorCode.Unavailable, `${service} did not answer within ${timeoutMs} ms`);
  }
}

/**
 * Request-reply over Kafka for the gateway. Requests go to the service's RPC topic; every instance
 * reads all replies in a consumer group of its own and keeps those it is waiting for.
 */
@Injectable()
export class KafkaRpcClient implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(KafkaRpcClient.name);
  private readonly pending = new Map<string, Pending>();
  private consumer?: Consumer;
  private readonly stallWatch: ConsumerStallWatch;
  private shuttingDown = false;
  /** Reply consumers replaced after a stall, since start. */
  consumerReplacements = 0;

  constructor(
    private readonly settings: KafkaSettings,
    private readonly producer: KafkaProducer,
    private readonly defaultTimeoutMs: number,
    consumerStallMs = CONSUMER_STALL_MS,
  ) {
    this.stallWatch = new ConsumerStallWatch(consumerStallMs, Date.now());
  }

  async onModuleInit(): Promise<void> {
    await this.startConsumer();
    this.stallWatch.start((silentMs) => this.replaceConsumer(silentMs));
    await this.producer.connect();
  }

  /** A reply consumer on a kafkajs client of its own (its own connections); returns once it reads live replies. */
  private async startConsumer(): Promise<void> {
    const consumer = createKafka(this.settings).consumer({
      groupId: `${consumerGroupOf(this.settings.app)}-replies-${this.settings.instanceId}`,
      ...consumerTimeouts(this.settings),
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    this.stallWatch.follow(consumer, () => this.consumer === consumer);
    // Ready once the first fetch after joining is done: by then "latest" offsets are resolved and no reply
    // to a request sent afterwards can be skipped.
    const ready = new Promise<void>((resolve) => {
      const off = consumer.on(consumer.events.FETCH, () => {
        off();
        resolve();
      });
    });
    await consumer.connect();
    await consumer.subscribe({ topics: [Topic.RpcReplies], fromBeginning: false });
    await consumer.run({
      // Replies are only read live by this instance's own group (a restarted instance has a new group and
      // new requests), so their offsets are never needed: committing them after every batch cost a round
      // trip to Kafka that held up the next fetch, i.e. every reply waiting behind it.
      autoCommit: false,
      // One partition's batch never waits behind another's.
      partitionsConsumedConcurrently: TOPIC_SPECS[Topic.RpcReplies].partitions,
      // A batch's replies are settled in one go: their callers continue in the same turn of the event loop.
      eachBatch: async ({ batch }) => {
        for (const message of batch.messages) this.settle(message);
      },
    });
    await settledWithin(ready, 15_000);
  }

  /**
   * Replaces a reply consumer that has heard nothing from Kafka for `silentMs` (ConsumerStallWatch) with one on
   * new connections. Replies sent meanwhile are not read (the new one starts at the latest): their callers
   * time out and answer 503, as they would have anyway.
   */
  private async replaceConsumer(silentMs: number): Promise<void> {
    if (this.shuttingDown) return;
    this.consumerReplacements++;
    const stuck = this.consumer;
    this.consumer = undefined;
    await replaceStuckConsumer({
      what: 'the reply consumer',
      silentMs,
      stuck,
      logger: this.logger,
      stopping: () => this.shuttingDown,
      startNew: () => this.startConsumer(),
    });
  }

  private settle(message: KafkaMessage): void {
    const correlationId = decodeHeaders(message.headers)[RpcHeader.CorrelationId];
    const waiting = correlationId ? this.pending.get(correlationId) : undefined;
    if (!waiting) return;
    this.pending.delete(correlationId);
    clearTimeout(waiting.timer);
    try {
      const reply = JSON.parse(message.value?.toString() ?? '') as RpcReply;
      if (reply.ok) waiting.resolve(reply.data);
      else waiting.reject(DomainError.fromBody(reply.error));
    } catch (error) {
      waiting.reject(error);
    }
  }

  /** Sends `data` to `service` under `pattern` and resolves with its answer, or rejects with its DomainError. */
  request<T>(service: ServiceName, pattern: RpcPattern, data: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    return this.requestOn<T>(SERVICE_RPC_TOPIC[service], service, pattern, data, timeoutMs);
  }

  /** request() to any topic served by a KafkaTransport (`rpcTopic`): the transport's own bench and tests. */
  requestOn<T>(topic: string, service: string, pattern: string, data: unknown, timeoutMs = this.defaultTimeoutMs): Promise<T> {
    const correlationId = randomUUID();
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        reject(new RpcTimeoutError(service, timeoutMs));
      }, timeoutMs);
      this.pending.set(correlationId, { resolve: resolve as (v: unknown) => void, reject, timer });
      this.producer
        .send(topic, [
          {
            key: correlationId,
            value: { pattern, data },
            headers: {
              [RpcHeader.CorrelationId]: correlationId,
              [RpcHeader.ReplyTopic]: Topic.RpcReplies,
              [RpcHeader.Deadline]: String(Date.now() + timeoutMs),
            },
          },
        ])
        .catch((error: unknown) => {
          if (!this.pending.delete(correlationId)) return;
          clearTimeout(timer);
          this.logger.warn(`could not send a request to ${service}: ${String(error)}`);
          reject(new DomainError(ErrorCode.Unavailable, `${service} is unreachable: Kafka did not take the request`));
        });
    });
  }

  async onApplicationShutdown(): Promise<void> {
    this.shuttingDown = true;
    this.stallWatch.stop();
    await settledWithin(this.stallWatch.replacement, STUCK_DISCONNECT_MS);
    for (const [id, waiting] of this.pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new DomainError(ErrorCode.Unavailable, 'the gateway is shutting down'));
      this.pending.delete(id);
    }
    await this.consumer?.disconnect().catch(() => undefined);
  }
}
