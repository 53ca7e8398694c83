import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { cloudEventHeaders, type EventEnvelope } from '@workline/contracts';
import { type Prisma, PrismaService, type Sql, statement } from '@workline/db';
import { type AppMetrics, withRequestIdHeader } from '@workline/observability';
import { randomUUID } from 'node:crypto';
import { type KafkaProducer, MessageTooLargeError, type OutgoingMessage } from './producer';

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
 * Publishes outbox rows to Kafka, oldest first, then marks them published (or dead-lettered, with the
 * reason, when one can never be published). One relay per source works
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
        select count(*) as count from messaging_outbox where source = ${options.source} and published_at is null and dead_lettered_at is null`;
      return [{ labels: { source: options.source }, value: Number(count) }];
    });
    options.metrics?.gauge('outbox_dead_letters', 'Outbox rows that can never be published (e.g. larger than the topic allows), dead-lettered with the reason in messaging_outbox.dead_letter_reason, by source app', ['source'], async () => {
      const [{ count }] = await this.prisma.$queryRaw<{ count: bigint }[]>`
        select count(*) as count from messaging_outbox where source = ${options.source} and dead_lettered_at is not null`;
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

  /**
   * Publishes one batch; returns how many rows it took (published or dead-lettered; 0 when another relay
   * holds the lock). A row that can never be published (larger than its topic's max.message.bytes) is
   * dead-lettered in the outbox with the reason, so the rows behind it flow.
   */
  async relayOnce(): Promise<number> {
    return this.prisma.$transaction(
      async (tx) => {
        const [{ locked }] = await tx.$queryRaw<{ locked: boolean }[]>`select pg_try_advisory_xact_lock(hashtext(${`outbox:${this.options.source}`})) as locked`;
        if (!locked) return 0;
        const rows = await tx.$queryRaw<OutboxRow[]>`
          select seq, id, topic, key, payload, headers from messaging_outbox
          where source = ${this.options.source} and published_at is null and dead_lettered_at is null
          order by seq limit ${this.batchSize}`;
        if (!rows.length) return 0;
        const byTopic = new Map<string, OutboxRow[]>();
        for (const row of rows) {
          let topicRows = byTopic.get(row.topic);
          if (!topicRows) byTopic.set(row.topic, (topicRows = []));
          topicRows.push(row);
        }
        const dead: { row: OutboxRow; reason: string }[] = [];
        for (const [topic, topicRows] of byTopic) dead.push(...(await this.publish(topic, topicRows)));
        const deadSeqs = new Set(dead.map(({ row }) => row.seq));
        const published = rows.filter((row) => !deadSeqs.has(row.seq)).map((row) => row.seq);
        if (published.length) await tx.$executeRaw`update messaging_outbox set published_at = now() where seq = any(${published})`;
        if (dead.length) {
          await tx.$executeRaw`
            update messaging_outbox set dead_lettered_at = now(), dead_letter_reason = d.reason
            from unnest(${dead.map(({ row }) => row.seq)}::bigint[], ${dead.map(({ reason }) => reason)}::text[]) as d(seq, reason)
            where messaging_outbox.seq = d.seq`;
        }
        return rows.length;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
  }

  /**
   * Sends a topic's rows in order (the producer splits them into requests within the topic's
   * max.message.bytes); returns those that can never be sent, with the reason, having sent the others.
   */
  private async publish(topic: string, rows: OutboxRow[]): Promise<{ row: OutboxRow; reason: string }[]> {
    const messageOf = (row: OutboxRow): OutgoingMessage => ({
      key: row.key,
      value: row.payload,
      headers: { ...(row.headers ?? {}), ...cloudEventHeaders(row.payload as EventEnvelope<unknown>, this.options.source), 'event-id': row.id },
    });
    const dead: { row: OutboxRow; reason: string }[] = [];
    const tooLarge = new Set((await this.producer.tooLarge(topic, rows.map(messageOf))).map((error) => {
      dead.push({ row: rows[error.index], reason: error.message });
      return error.index;
    }));
    let pending = rows.filter((_, index) => !tooLarge.has(index));
    while (pending.length) {
      try {
        await withTimeout(this.producer.send(topic, pending.map(messageOf)), 20_000, `publishing to ${topic}`);
        break;
      } catch (error) {
        // The broker refused one as too large although it looked small enough (its limit is lower than read):
        // the rows before it may be published again with the rest (consumers dedupe on the event id).
        if (!(error instanceof MessageTooLargeError) || !pending[error.index]) throw error;
        dead.push({ row: pending[error.index], reason: error.message });
        pending = pending.filter((_, index) => index !== error.index);
      }
    }
    for (const { row, reason } of dead) this.logger.error({ msg: `outbox event ${row.id} (${topic}) dead-lettered: ${reason}`, event_id: row.id, topic, reason });
    return dead;
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
