import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { cloudEventHeaders, type EventEnvelope } from '@workline/contracts';
import { type Prisma, PrismaService, type Sql, statement } from '@workline/db';
import { type AppMetrics, withRequestIdHeader } from '@workline/observability';
import { randomUUID } from 'node:crypto';
import type { KafkaProducer } from './producer';

export type Tx = Prisma.TransactionClient;

export interface EnqueueOptions {
  key?: string;
  headers?: Record<string, string>;
}

/**
 * Writes an event into the transactional outbox, inside the caller's transaction, so the state change
 * and the event it causes commit together. Returns the event id consumers dedupe on.
 */
export async function enqueueEvent<T>(tx: Tx, source: string, topic: string, data: T, options: EnqueueOptions = {}): Promise<string> {
  const id = randomUUID();
  const envelope: EventEnvelope<T> = { id, type: topic, occurred_at: new Date().toISOString(), data };
  await tx.outboxEvent.create({
    data: {
      id,
      source,
      topic,
      key: options.key ?? null,
      payload: envelope as unknown as Prisma.InputJsonValue,
      // The current request id (if any) rides along, so the event's consumers log under it too.
      headers: withRequestIdHeader(options.headers) ?? undefined,
    },
  });
  return id;
}

/** The rows travel as one jsonb parameter: no per-row parameters, and seq follows the order given. */
const INSERT_OUTBOX_ROWS = statement(
  'outbox_insert_rows',
  `insert into messaging_outbox (id, source, topic, key, payload, headers)
   select id, source, topic, key, payload, headers from jsonb_to_recordset($1::jsonb) as x(id text, source text, topic text, key text, payload jsonb, headers jsonb)`,
);

/**
 * enqueueEvent for many events in one statement, on a raw-SQL transaction (hot paths: record
 * submissions, bulk imports): one round trip whatever the number of events. Returns the event ids in the
 * order given.
 */
export async function enqueueEvents<T>(sql: Sql, source: string, topic: string, events: { data: T; key?: string; headers?: Record<string, string> }[]): Promise<string[]> {
  if (!events.length) return [];
  const occurredAt = new Date().toISOString();
  const current = withRequestIdHeader(undefined) ?? null;
  const rows = events.map(({ data, key, headers }) => {
    const id = randomUUID();
    const envelope: EventEnvelope<T> = { id, type: topic, occurred_at: occurredAt, data };
    // A batch holds the events of several requests: each says whose it is, else the current request's.
    return { id, source, topic, key: key ?? null, payload: envelope, headers: headers ?? current };
  });
  await sql.query(INSERT_OUTBOX_ROWS, [JSON.stringify(rows)]);
  return rows.map((row) => row.id);
}

export interface OutboxRelayOptions {
  /** The outbox rows this relay publishes: those written with this source (the app's name). */
  source: string;
  pollMs?: number;
  batchSize?: number;
  /** Where to publish the `outbox_backlog` gauge (rows of this source not yet relayed). */
  metrics?: AppMetrics;
}

interface OutboxRow {
  seq: bigint;
  id: string;
  topic: string;
  key: string | null;
  payload: unknown;
  headers: Record<string, string> | null;
}

/** Longest final flush of the outbox at shutdown; what is left is relayed by another instance or the next start. */
const FLUSH_MS = 10_000;

const withTimeout = <T>(promise: Promise<T>, ms: number, what: string) =>
  Promise.race([promise, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what} took over ${ms} ms`)), ms))]);

/**
 * Publishes outbox rows to Kafka, oldest first, then marks them published. One relay per source works
 * at a time (a transaction-scoped advisory lock), which keeps per-key order across instances. A crash
 * between publishing and marking publishes a row again: consumers dedupe on the event id (Inbox).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private readonly pollMs: number;
  private readonly batchSize: number;

  constructor(
    private readonly prisma: PrismaService,
    private readonly producer: KafkaProducer,
    private readonly options: OutboxRelayOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 500;
    options.metrics?.gauge('outbox_backlog', 'Outbox rows written but not yet published to Kafka, by source app', ['source'], async () => {
      const [{ count }] = await this.prisma.$queryRaw<{ count: bigint }[]>`
        select count(*) as count from messaging_outbox where source = ${options.source} and published_at is null`;
      return [{ labels: { source: options.source }, value: Number(count) }];
    });
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  /** Asks the relay to look now, instead of at its next poll (call after committing an event). */
  poke(): void {
    this.wake?.();
  }

  /** Publishes one batch; returns how many rows it published (0 when another relay holds the lock). */
  async relayOnce(): Promise<number> {
    return this.prisma.$transaction(
      async (tx) => {
        const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(hashtext(${`outbox:${this.options.source}`})) as locked`;
        if (!locked) return 0;
        const rows = await tx.$queryRaw<OutboxRow[]>`
          select seq, id, topic, key, payload, headers from messaging_outbox
          where source = ${this.options.source} and published_at is null
          order by seq limit ${this.batchSize}`;
        if (!rows.length) return 0;
        const byTopic = new Map<string, OutboxRow[]>();
        for (const row of rows) byTopic.set(row.topic, [...(byTopic.get(row.topic) ?? []), row]);
        for (const [topic, topicRows] of byTopic) {
          const messages = topicRows.map((row) => ({
            key: row.key,
            value: row.payload,
            headers: { ...(row.headers ?? {}), ...cloudEventHeaders(row.payload as EventEnvelope<unknown>, this.options.source), 'event-id': row.id },
          }));
          await withTimeout(this.producer.send(topic, messages), 20_000, `publishing to ${topic}`);
        }
        const seqs = rows.map((row) => row.seq);
        await tx.$executeRaw`update messaging_outbox set published_at = now() where seq = any(${seqs})`;
        return rows.length;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let published = 0;
      try {
        published = await this.relayOnce();
        failures = 0;
      } catch (error) {
        failures++;
        this.logger.warn(`outbox relay (${this.options.source}) failed, will retry: ${error instanceof Error ? error.message : String(error)}`);
      }
      if (published >= this.batchSize) continue;
      const wait = failures ? Math.min(30_000, this.pollMs * 2 ** failures) : this.pollMs;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  /**
   * Stops the loop, then publishes what is left (events committed by the last handlers), for at most
   * FLUSH_MS. Before application shutdown: the database and the producer close only after this.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    const deadline = Date.now() + FLUSH_MS;
    while (Date.now() < deadline) {
      try {
        if ((await this.relayOnce()) === 0) return;
      } catch (error) {
        this.logger.warn(`outbox relay (${this.options.source}) could not flush before shutdown: ${error instanceof Error ? error.message : String(error)}`);
        return;
      }
    }
  }
}
