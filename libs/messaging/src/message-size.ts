import { Logger } from '@nestjs/common';
import { errorMessage, type Topic, TOPIC_SPECS } from '@workline/contracts';
import { ConfigResourceTypes, type Kafka, type Message } from 'kafkajs';

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

/** The broker's message.max.bytes default (1 MB + 12), used when a topic's configuration cannot be read. */
export const DEFAULT_MAX_MESSAGE_BYTES = 1_048_588;
/** A record batch's header (v2 format), and some room for the broker's own accounting. */
export const BATCH_OVERHEAD_BYTES = 61 + 451;
/** How long a topic's max.message.bytes is trusted before it is read again (a failed read: retried sooner). */
export const LIMIT_TTL_MS = 10 * 60_000;
const LIMIT_RETRY_MS = 30_000;
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

/** Whether Kafka refused a produce request for a message or batch too large (anywhere in the error's causes). */
export const isBrokerTooLarge = (error: unknown): boolean => {
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
 * Each topic's max.message.bytes, read from Kafka's topic configuration through an admin connection of the
 * producer's client, and what a message counts against it.
 */
export class TopicMessageLimits {
  private readonly logger = new Logger('KafkaProducer');
  private readonly limits = new Map<string, Limit>();

  constructor(private readonly kafka: Pick<Kafka, 'admin'>) {}

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
}
