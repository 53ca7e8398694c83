import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { CompressionTypes, type Producer } from 'kafkajs';
import { createKafka, type KafkaSettings } from './kafka.settings';

export interface OutgoingMessage {
  key?: string | null;
  value: unknown;
  headers?: Record<string, string>;
}

/**
 * An idempotent producer that waits for every in-sync replica (acks = all): a resolved send() means
 * Kafka has the message durably.
 */
@Injectable()
export class KafkaProducer implements OnApplicationShutdown {
  private readonly logger = new Logger(KafkaProducer.name);
  private readonly producer: Producer;
  private connecting?: Promise<void>;

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
    await this.producer.send({
      topic,
      acks: -1,
      compression: CompressionTypes.None,
      messages: messages.map((m) => ({
        key: m.key ?? null,
        value: typeof m.value === 'string' || Buffer.isBuffer(m.value) ? m.value : JSON.stringify(m.value),
        headers: m.headers,
      })),
    });
  }

  async onApplicationShutdown(): Promise<void> {
    if (!this.connecting) return;
    await this.producer.disconnect().catch((error: unknown) => this.logger.warn(`producer disconnect: ${String(error)}`));
  }
}
