import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { withRequestIdHeader } from '@workline/observability';
import { CompressionTypes, type Kafka, type Message, type Producer } from 'kafkajs';
import { createKafka, type KafkaSettings } from './kafka.settings';
import { BATCH_OVERHEAD_BYTES, isBrokerTooLarge, MessageTooLargeError, recordSize, TopicMessageLimits } from './message-size';
import { settledWithin } from './timeouts';

export interface OutgoingMessage {
  key?: string | null;
  value: unknown;
  headers?: Record<string, string>;
}

interface QueuedSend {
  topic: string;
  messages: Message[];
  sizes: number[];
  /** Index of the first message not yet produced (a send larger than its topic's budget goes in pieces). */
  next: number;
  failed: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/**
 * The sends waiting for a produce request, first in first out. Taking from the front moves a head index
 * instead of shifting the sends behind it (`splice(0, n)` copies every one of them: with sends queuing faster
 * than one request takes them, merging grew quadratic); the taken part is cut off once it is half the array,
 * which copies at most as many sends as were taken since, so each send is copied O(1) times.
 */
class SendQueue {
  private readonly sends: QueuedSend[] = [];
  private head = 0;

  get length(): number {
    return this.sends.length - this.head;
  }

  push(send: QueuedSend): void {
    this.sends.push(send);
  }

  /** The send `index` places from the front (index below length). */
  at(index: number): QueuedSend {
    return this.sends[this.head + index];
  }

  dropFront(count: number): void {
    this.head += count;
    if (this.head * 2 >= this.sends.length) {
      this.sends.splice(0, this.head);
      this.head = 0;
    }
  }

  remove(send: QueuedSend): void {
    const at = this.sends.indexOf(send, this.head);
    if (at >= 0) this.sends.splice(at, 1);
  }

  toArray(): QueuedSend[] {
    return this.sends.slice(this.head);
  }
}

/** The messages of one send() that go into one produce request. */
interface Slice {
  send: QueuedSend;
  from: number;
  to: number;
}

/** Most send() calls merged into one produce request. */
const MAX_SENDS_PER_PRODUCE = 1000;
/** Most bytes in one produce request, whatever the topics (the broker's socket.request.max.bytes is 100 MB). */
const MAX_PRODUCE_BYTES = 32 * 1024 * 1024;
/** On shutdown: how long the sends still queued may take, then how long kafkajs may take to disconnect. */
const SHUTDOWN_DRAIN_MS = 5_000;
const SHUTDOWN_DISCONNECT_MS = 2_000;

/**
 * An idempotent producer that waits for every in-sync replica (acks = all): a resolved send() means
 * Kafka has the message durably.
 *
 * Sends are merged: those made in one turn of the event loop, and those made while a produce request is
 * under way (one in flight keeps idempotent ordering), go out in the next produce request, in call order
 * (so per-partition order is kept). A produce request holds at most the topic's max.message.bytes per topic
 * (read from the topic's configuration), so a large send goes out in several requests, in order; a message
 * that alone is larger than that fails its send with MessageTooLargeError before any of it is produced.
 */
@Injectable()
export class KafkaProducer implements OnApplicationShutdown {
  private readonly logger = new Logger(KafkaProducer.name);
  private readonly kafka: Kafka;
  private readonly producer: Producer;
  private connecting?: Promise<void>;
  private readonly queue = new SendQueue();
  private flushing = false;
  private scheduled = false;
  private readonly topicLimits: TopicMessageLimits;
  /** Set when a shutdown gave up waiting for the sends under way (their drain() loops end). */
  private abandoned = false;

  constructor(settings: KafkaSettings) {
    this.kafka = createKafka(settings);
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
    this.topicLimits = new TopicMessageLimits(this.kafka);
  }

  connect(): Promise<void> {
    this.connecting ??= this.producer.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  /**
   * The topic's max.message.bytes (TopicMessageLimits: read from Kafka, cached; a send never waits for a
   * read once a value is known).
   */
  maxMessageBytes(topic: string): Promise<number> {
    return this.topicLimits.maxMessageBytes(topic);
  }

  /** Bytes of records one produce request may carry for the topic. */
  private async budgetOf(topic: string): Promise<number> {
    return Math.max(1, (await this.maxMessageBytes(topic)) - BATCH_OVERHEAD_BYTES);
  }

  /** Encodes messages as send() would, with their sizes as counted against the topic's max.message.bytes. */
  encode(messages: OutgoingMessage[]): { encoded: Message[]; sizes: number[] } {
    const encoded: Message[] = messages.map((m) => ({
      key: m.key ?? null,
      value: typeof m.value === 'string' || Buffer.isBuffer(m.value) ? m.value : JSON.stringify(m.value),
      // The id of the request being served (if any) travels with every message sent on its behalf.
      headers: withRequestIdHeader(m.headers),
    }));
    return { encoded, sizes: encoded.map(recordSize) };
  }

  /** The messages that can never be produced to the topic (each alone over its max.message.bytes), by index. */
  async tooLarge(topic: string, messages: OutgoingMessage[]): Promise<MessageTooLargeError[]> {
    const budget = await this.budgetOf(topic);
    const { sizes } = this.encode(messages);
    return sizes.flatMap((size, index) =>
      size > budget ? [new MessageTooLargeError(topic, index, size, budget + BATCH_OVERHEAD_BYTES)] : [],
    );
  }

  /**
   * Resolves once Kafka has every message durably (in order, per partition). Rejects with
   * MessageTooLargeError, having produced none of them, when one of them can never fit its topic.
   */
  async send(topic: string, messages: OutgoingMessage[]): Promise<void> {
    if (!messages.length) return;
    await this.connect();
    const { encoded, sizes } = this.encode(messages);
    const budget = await this.budgetOf(topic);
    const tooLarge = sizes.findIndex((size) => size > budget);
    if (tooLarge >= 0) throw new MessageTooLargeError(topic, tooLarge, sizes[tooLarge], budget + BATCH_OVERHEAD_BYTES);
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ topic, messages: encoded, sizes, next: 0, failed: false, resolve, reject });
      this.schedule();
    });
  }

  /** Flushes at the end of this turn of the event loop, so the sends made in it travel together. */
  private schedule(): void {
    if (this.scheduled || this.flushing) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing) return;
    this.flushing = true;
    try {
      while (this.queue.length) {
        const slices = await this.take();
        try {
          await this.produce(slices);
          this.settle(slices);
        } catch (error) {
          await this.recover(slices, error);
        }
      }
    } finally {
      this.flushing = false;
    }
  }

  /**
   * The next produce request: queued sends in call order while every topic stays within its budget. Each
   * message is pushed once (no re-copying of arrays per merged send), so merging n sends costs O(n).
   */
  private async take(): Promise<Slice[]> {
    const budgets = new Map<string, number>();
    for (let index = 0; index < Math.min(this.queue.length, MAX_SENDS_PER_PRODUCE); index++) {
      const { topic } = this.queue.at(index);
      if (!budgets.has(topic)) budgets.set(topic, await this.budgetOf(topic));
    }
    const used = new Map<string, number>();
    const slices: Slice[] = [];
    let total = 0;
    let taken = 0;
    while (taken < this.queue.length && slices.length < MAX_SENDS_PER_PRODUCE) {
      const send = this.queue.at(taken);
      const budget = budgets.get(send.topic) ?? (await this.budgetOf(send.topic));
      let bytes = used.get(send.topic) ?? 0;
      let to = send.next;
      while (to < send.messages.length) {
        const size = send.sizes[to];
        const first = total === 0;
        if (!first && (bytes + size > budget || total + size > MAX_PRODUCE_BYTES)) break;
        bytes += size;
        total += size;
        to++;
      }
      used.set(send.topic, bytes);
      if (to > send.next) slices.push({ send, from: send.next, to });
      if (to < send.messages.length) break;
      taken++;
    }
    // Sends taken whole leave the queue; one taken in part stays at its head, for the next request.
    this.queue.dropFront(taken);
    for (const slice of slices) slice.send.next = slice.to;
    return slices;
  }

  private settle(slices: Slice[]): void {
    for (const { send, to } of slices) if (to === send.messages.length && !send.failed) send.resolve();
  }

  private fail(send: QueuedSend, error: unknown): void {
    if (send.failed) return;
    send.failed = true;
    this.queue.remove(send);
    send.reject(error);
  }

  /** One bad send must not fail those merged with it: each is produced again on its own. */
  private async recover(slices: Slice[], error: unknown): Promise<void> {
    if (slices.length === 1 && !isBrokerTooLarge(error)) return this.fail(slices[0].send, error);
    for (const slice of slices) {
      if (slice.send.failed) continue;
      try {
        await this.produceAlone(slice);
        if (slice.to === slice.send.messages.length) slice.send.resolve();
      } catch (sliceError) {
        this.fail(slice.send, sliceError);
      }
    }
  }

  /**
   * A slice the broker refused as too large (its max.message.bytes is below what was read, or records grew
   * in encoding): produced again in halves, down to the message that alone is too large.
   */
  private async produceAlone(slice: Slice): Promise<void> {
    try {
      await this.produce([slice]);
    } catch (error) {
      if (!isBrokerTooLarge(error)) throw error;
      const { send, from, to } = slice;
      if (to - from === 1) {
        const maxBytes = await this.maxMessageBytes(send.topic);
        throw new MessageTooLargeError(send.topic, from, send.sizes[from], maxBytes);
      }
      const middle = from + Math.floor((to - from) / 2);
      await this.produceAlone({ send, from, to: middle });
      await this.produceAlone({ send, from: middle, to });
    }
  }

  private async produce(slices: Slice[]): Promise<void> {
    const byTopic = new Map<string, Message[]>();
    for (const { send, from, to } of slices) {
      let messages = byTopic.get(send.topic);
      if (!messages) byTopic.set(send.topic, (messages = []));
      for (let i = from; i < to; i++) messages.push(send.messages[i]);
    }
    await this.producer.sendBatch({
      acks: -1,
      compression: CompressionTypes.None,
      topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
    });
  }

  /** Resolves once every send queued so far has been produced (or has failed). */
  async drain(): Promise<void> {
    while (!this.abandoned && (this.flushing || this.scheduled || this.queue.length)) await new Promise((r) => setTimeout(r, 10));
  }

  /**
   * Waits for the queued sends (at most SHUTDOWN_DRAIN_MS), fails those still queued, and disconnects (at most
   * SHUTDOWN_DISCONNECT_MS): a kafkajs producer that lived through a broker restart may retry one request for
   * minutes, and the app must still stop in time. A failed send was never acknowledged, so nothing durable is
   * lost: its caller (an outbox transaction, a reply, a dead-lettering) fails and is retried elsewhere.
   */
  async onApplicationShutdown(): Promise<void> {
    if (!this.connecting) return;
    if (!(await settledWithin(this.drain(), SHUTDOWN_DRAIN_MS))) {
      this.abandoned = true;
      this.logger.warn(`shutting down: ${this.queue.length} send(s) not produced within ${SHUTDOWN_DRAIN_MS} ms are failed`);
      for (const send of this.queue.toArray()) this.fail(send, new Error('the producer is shutting down: not produced'));
    }
    const disconnected = this.producer.disconnect().catch((error: unknown) => this.logger.warn(`producer disconnect: ${String(error)}`));
    if (!(await settledWithin(disconnected, SHUTDOWN_DISCONNECT_MS)))
      this.logger.warn(`shutting down: the producer did not disconnect within ${SHUTDOWN_DISCONNECT_MS} ms`);
  }
}
