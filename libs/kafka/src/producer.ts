import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { withRequestIdHeader } from '@workline/observability';
import { CompressionTypes, type Message, type Producer } from 'kafkajs';
import { createKafka, type KafkaSettings } from './kafka.settings';

export interface OutgoingMessage {
  key?: string | null;
  value: unknown;
  headers?: Record<string, string>;
}

interface QueuedSend {
  topic: string;
  messages: Message[];
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** Most send() calls merged into one produce request. */
const MAX_SENDS_PER_BATCH = 500;

/**
 * An idempotent producer that waits for every in-sync replica (acks = all): a resolved send() means
 * Kafka has the message durably.
 *
 * With one request in flight (what keeps idempotent ordering), sends made while a request is under way
 * would otherwise queue one by one, capping a busy gateway at one round-trip per RPC request. They are
 * merged into the next produce request instead, in call order (so per-partition order is kept).
 */
@Injectable()
export class KafkaProducer implements OnApplicationShutdown {
  private readonly logger = new Logger(KafkaProducer.name);
  private readonly producer: Producer;
  private connecting?: Promise<void>;
  private readonly queue: QueuedSend[] = [];
  private flushing = false;

  constructor(settings: KafkaSettings) {
    this.producer = createKafka(settings).producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    this.connecting ??= this.producer.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (!messages.length) return;
    await this.connect();
    const encoded: Message[] = messages.map((m) => ({
      key: m.key ?? null,
      value: typeof m.value === 'string' || Buffer.isBuffer(m.value) ? m.value : JSON.stringify(m.value),
      // The id of the request being served (if any) travels with every message sent on its behalf.
      headers: withRequestIdHeader(m.headers),
    }));
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages: encoded, resolve, reject });
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length) {
        const batch = this.queue.splice(0, MAX_SENDS_PER_BATCH);
        try {
          await this.produce(batch);
          for (const entry of batch) entry.resolve();
        } catch (error) {
          if (batch.length === 1) {
            batch[0].reject(error);
            continue;
          }
          // One bad message must not fail the sends merged with it: each is tried on its own.
          for (const entry of batch) {
            await this.produce([entry]).then(entry.resolve, entry.reject);
          }
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  private async produce(batch: QueuedSend[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const entry of batch) byTopic.set(entry.topic, [...(byTopic.get(entry.topic) ?? []), ...entry.messages]);
    await this.producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.None,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  /** Resolves once every send queued so far has been produced (or has failed). */
  async drain(): Promise<void> {
    while (this.flushing || this.queue.length) await new Promise((r) => setTimeout(r, 10));
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.connecting) return;
    await this.drain();
    await this.producer.disconnect().catch((error: unknown) => this.logger.warn(`producer disconnect: ${String(error)}`));
  }
}
