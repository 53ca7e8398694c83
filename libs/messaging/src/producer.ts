import { Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { errorMessage, type Topic, TOPIC_SPECS } from '@workline/contracts';
import { withRequestIdHeader } from '@workline/observability';
import { CompressionTypes, ConfigResourceTypes, type Kafka, type Message, type Producer } from 'kafkajs';
import { createKafka, type KafkaSettings } from './kafka.settings';

export interface OutgoingMessage {
  key?: string | null;
  value: unknown;
  headers?: Record<string, string>;
}

/** A message larger than its topic's max.message.bytes: it can never be produced, however often it is tried. */
export class MessageTooLargeError extends Error {
  override readonly name = 'MessageTooLargeError';
  constructor(
    readonly topic: string,
    /** Its index in the messages given to send(). */
    readonly index: number,
    readonly bytes: number,
    readonly maxBytes: number,
  ) {
    super(`a message of ${bytes} bytes is larger than ${topic}'s max.message.bytes (${maxBytes})`);
  }
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
/** The broker's message.max.bytes default (1 MB + 12), used when a topic's configuration cannot be read. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
/** A record batch's header (v2 format), and some room for the broker's own accounting. */
const BATCH_OVERHEAD_BYTES = 61 + 451;
/** How long a topic's max.message.bytes is trusted before it is read again (a failed read: retried sooner). */
export const LIMIT_TTL_MS = 10 * 60_000;
const LIMIT_RETRY_MS = 30_000;
/** On shutdown: how long the sends still queued may take, then how long kafkajs may take to disconnect. */
const SHUTDOWN_DRAIN_MS = 5_000;
const SHUTDOWN_DISCONNECT_MS = 2_000;

/**
 * `promise`, or a rejection naming `what` once `ms` have passed. The timer ends with the promise: a relay
 * publishing hundreds of times a second would otherwise keep as many pending timers (and what they hold) alive.
 */
export async function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([
      promise,
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms);
      }),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** Whether `work` settled (resolved or rejected) within `ms`; undefined counts as settled. */
export async function settledWithin(work: Promise<unknown> | undefined, ms: number): Promise<boolean> {
  if (!work) return true;
  const settled = work.then(
    () => true,
    () => true,
  );
  return withTimeout(settled, ms, 'the work').catch(() => false);
}

/** A topic's max.message.bytes as known: `bytes` settles once read; `refreshing` while a newer read runs. */
interface Limit {
  bytes: Promise<number>;
  until: number;
  refreshing: boolean;
}

/**
 * Upper bound of a record's size in a v2 record batch (uncompressed): length, attributes, timestamp and
 * offset deltas, key, value and headers, each length a varint of at most 5 bytes.
 */
export function recordSize(message: Message): number {
  const bytes = (value: Message['value'] | string | undefined) =>
    value == null ? 0 : Buffer.isBuffer(value) ? value.length : Buffer.byteLength(value);
  let size = 5 + 1 + 10 + 5 + 5 + bytes(message.key) + 5 + bytes(message.value) + 5;
  const headers = message.headers;
  // No array per header or per message (a QC-heavy import sizes half a million messages).
  for (const name in headers) {
    const value = headers[name];
    const perValue = 10 + Buffer.byteLength(name);
    if (!Array.isArray(value)) size += perValue + bytes(value as string | Buffer | undefined);
    else for (const v of value) size += perValue + bytes(v as string | Buffer | undefined);
  }
  return size;
}

const isBrokerTooLarge = (error: unknown): boolean => {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { type, cause, originalError, errors } = e as { type?: string; cause?: unknown; originalError?: unknown; errors?: unknown[] };
    return (
      type === 'MESSAGE_TOO_LARGE' ||
      type === 'RECORD_LIST_TOO_LARGE' ||
      visit(cause) ||
      visit(originalError) ||
      (Array.isArray(errors) && errors.some(visit))
    );
  };
  return visit(error);
};

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
  private readonly limits = new Map<string, Limit>();
  /** Set when a shutdown gave up waiting for the sends under way (their drain() loops end). */
  private abandoned = false;

  constructor(settings: KafkaSettings) {
    this.kafka = createKafka(settings);
    this.producer = this.kafka.producer({ idempotent: true, maxInFlightRequests: 1, allowAutoTopicCreation: false });
  }

  connect(): Promise<void> {
    this.connecting ??= this.producer.connect().catch((error: unknown) => {
      this.connecting = undefined;
      throw error;
    });
    return this.connecting;
  }

  /**
   * The topic's max.message.bytes: read from Kafka (cached LIMIT_TTL_MS; a failed read, LIMIT_RETRY_MS), else
   * its spec's, else the broker default. Only the first read is waited for: once a value is known, a read
   * that is due runs in the background and sends go on with the known value meanwhile, so a send never waits
   * for an admin connection (which, while Kafka is away, retries for minutes; docs/operations.md, "Fault tests").
   */
  maxMessageBytes(topic: string): Promise<number> {
    const known = this.limits.get(topic);
    if (known && (known.until > Date.now() || known.refreshing)) return known.bytes;
    const fallback = TOPIC_SPECS[topic as Topic]?.maxMessageBytes ?? DEFAULT_MAX_MESSAGE_BYTES;
    const read = this.readMaxMessageBytes(topic, fallback);
    const expiry = (ok: boolean) => Date.now() + (ok ? LIMIT_TTL_MS : LIMIT_RETRY_MS);
    if (known) {
      known.refreshing = true;
      void read.then(({ bytes, ok }) => this.limits.set(topic, { bytes: Promise.resolve(bytes), until: expiry(ok), refreshing: false }));
      return known.bytes;
    }
    const entry: Limit = { bytes: read.then(({ bytes }) => bytes), until: Number.POSITIVE_INFINITY, refreshing: false };
    this.limits.set(topic, entry);
    void read.then(({ ok }) => (entry.until = expiry(ok)));
    return entry.bytes;
  }

  /** `ok`: read from Kafka (it may equal the fallback); not ok: the read failed and `bytes` is the fallback. */
  private async readMaxMessageBytes(topic: string, fallback: number): Promise<{ bytes: number; ok: boolean }> {
    const admin = this.kafka.admin();
    try {
      await admin.connect();
      const { resources } = await admin.describeConfigs({
        includeSynonyms: false,
        resources: [{ type: ConfigResourceTypes.TOPIC, name: topic, configNames: ['max.message.bytes'] }],
      });
      const value = Number(resources[0]?.configEntries.find((entry) => entry.configName === 'max.message.bytes')?.configValue);
      return Number.isFinite(value) && value > 0 ? { bytes: value, ok: true } : { bytes: fallback, ok: false };
    } catch (error) {
      this.logger.warn(`could not read max.message.bytes of ${topic} (assuming ${fallback}): ${errorMessage(error)}`);
      return { bytes: fallback, ok: false };
    } finally {
      await admin.disconnect().catch(() => undefined);
    }
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
