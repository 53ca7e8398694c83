import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { cloudEventHeaders, errorMessage } from '@workline/contracts';
import { DbPool, PollWait, statement } from '@workline/db';
import type { AppMetrics } from '@workline/observability';
import { EVENT_SEPARATOR, FIELD_SEPARATOR } from './outbox-batch-rows';
import { markRelayed } from './outbox-dead-letters';
import { registerOutboxGauges } from './outbox-metrics';
import { compactPayload } from './outbox-payload';
import { OutboxPruning } from './outbox-pruning';
import { MessageTooLargeError } from './message-size';
import type { KafkaProducer, OutgoingMessage } from './producer';
import { withTimeout } from './timeouts';

export interface OutboxRelayOptions {
  /** The outbox rows this relay publishes: those written with this source (the app's name). */
  source: string;
  pollMs?: number;
  /**
   * How many events one relay transaction takes at most (default 500), counted in events: a batch row counts
   * as its events, and is always taken whole (a first row larger than this is taken alone).
   */
  batchSize?: number;
  /** Where to publish the `outbox_backlog` gauge (events of this source not yet relayed). */
  metrics?: AppMetrics;
  /**
   * How long a published row stays in the outbox (what was sent, for audits and support) before the relay
   * deletes it; 0 or unset keeps rows for ever. Dead-lettered rows stay until an operator deals with them.
   */
  retentionMs?: number;
  /** How often the relay prunes when there is little to prune (default a minute). */
  pruneEveryMs?: number;
}

/**
 * One due outbox row as the relay reads it: the payload as the JSON text to send (never parsed), and what
 * the CloudEvents headers need of the envelope (its id is the row's, its type the row's topic).
 */
export interface OutboxRow {
  /** bigint, kept as pg's text (no BigInt per row). */
  seq: string;
  id: string;
  topic: string;
  key: string | null;
  payload: string;
  headers: string | null;
  /** A batch row's events (enqueueEventBatch), else null. */
  events: string | null;
  ce_time: string | null;
}

/** One event of a relayed row: a row of one event, or a line of a batch row. */
export interface RelayedEvent {
  row: OutboxRow;
  id: string;
  message: OutgoingMessage;
}

/** Longest final flush of the outbox at shutdown; what is left is relayed by another instance or the next start. */
const FLUSH_MS = 10_000;

/**
 * The relay's read, in the transaction that publishes the rows: the source's advisory lock (taken once,
 * an InitPlan; no rows when another relay holds it) and the oldest due rows, payloads as text, as many as
 * hold $3 events (a batch row counts as its events; the first row is always taken).
 */
export const RELAY_READ = statement(
  'outbox_relay_read',
  `with relay_lock as (select pg_try_advisory_xact_lock(hashtext($1)) as locked),
   due as (
     select seq, id, topic, key, payload, headers, events, coalesce(event_count, 1) as event_count
     from messaging_outbox
     where (select locked from relay_lock) and source = $2 and published_at is null and dead_lettered_at is null
     order by messaging_outbox.seq limit $3),
   counted as (select *, sum(event_count) over (order by seq) - event_count as events_before from due)
   select seq::text as seq, id, topic, key, payload::text as payload, headers::text as headers, events,
     payload->>'occurred_at' as ce_time
   from counted where events_before < $3 order by counted.seq`,
);

/**
 * Publishes outbox rows to Kafka, oldest first, then marks them published (or dead-lettered, with the
 * reason, when one can never be published). One relay per source works
 * at a time (a transaction-scoped advisory lock), which keeps per-key order across instances. A crash
 * between publishing and marking publishes a row again: consumers dedupe on the event id (Inbox).
 *
 * A batch is one transaction of two statements on the app's pool (DbPool): the read (lock and rows) and
 * the mark; payloads go from PostgreSQL's text to Kafka without being parsed (docs/decisions.md).
 */
@Injectable()
export class OutboxRelay implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(OutboxRelay.name);
  private running = false;
  private loop?: Promise<void>;
  private readonly poll = new PollWait();
  private readonly pollMs: number;
  private readonly batchSize: number;
  private readonly lockKey: string;
  private readonly pruning: OutboxPruning;

  constructor(
    private readonly db: DbPool,
    private readonly producer: KafkaProducer,
    private readonly options: OutboxRelayOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 500;
    this.lockKey = `outbox:${options.source}`;
    this.pruning = new OutboxPruning(db, options.source, options.retentionMs ?? 0, options.pruneEveryMs ?? 60_000);
    if (options.metrics) registerOutboxGauges(options.metrics, db, options.source);
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Asks the relay to look now, instead of at its next poll (call after committing an event). A poke while a
   * batch is under way is remembered: its rows may have committed after that batch's read, and would otherwise
   * wait for the next poll.
   */
  poke(): void {
    this.poll.wake();
  }

  /**
   * Publishes one batch; returns how many events it took (published or dead-lettered; 0 when another relay
   * holds the lock). An event that can never be published (larger than its topic's max.message.bytes) is
   * dead-lettered in the outbox with the reason, so the events behind it flow: its row, or a row of its own
   * when it came in a batch row.
   */
  async relayOnce(): Promise<number> {
    return this.db.transaction(async (sql) => {
      const rows = await sql.query<OutboxRow>(RELAY_READ, [this.lockKey, this.options.source, this.batchSize]);
      if (!rows.length) return 0;
      const byTopic = new Map<string, RelayedEvent[]>();
      let taken = 0;
      for (const row of rows) {
        let topicEvents = byTopic.get(row.topic);
        if (!topicEvents) byTopic.set(row.topic, (topicEvents = []));
        taken += this.eventsOf(row, topicEvents);
      }
      // The topics' sends start in one turn of the event loop: the producer merges them into one request.
      const dead = new Map<RelayedEvent, string>();
      await Promise.all([...byTopic].map(([topic, events]) => this.publish(topic, events, dead)));
      await markRelayed(sql, this.options.source, rows, dead);
      return taken;
    });
  }

  /** Appends the events of `row` to `into`, each with its Kafka message; returns how many. */
  private eventsOf(row: OutboxRow, into: RelayedEvent[]): number {
    const rowHeaders: Record<string, string> | null = row.headers ? (JSON.parse(row.headers) as Record<string, string>) : null;
    const message = (id: string, occurredAt: string, value: string): RelayedEvent => {
      // The CloudEvents attributes and the event id win over a row header of the same name.
      const headers: Record<string, string> = cloudEventHeaders({ id, type: row.topic, occurred_at: occurredAt }, this.options.source);
      headers['event-id'] = id;
      if (rowHeaders) for (const name in rowHeaders) if (!(name in headers)) headers[name] = rowHeaders[name];
      return { row, id, message: { key: row.key, value, headers } };
    };
    if (row.events === null) {
      into.push(message(row.id, row.ce_time as string, compactPayload(row.payload)));
      return 1;
    }
    // A batch row's envelopes were written by JSON.stringify: compact already, sent as they are.
    let count = 0;
    for (const line of row.events.split(EVENT_SEPARATOR)) {
      const idEnd = line.indexOf(FIELD_SEPARATOR);
      const timeEnd = line.indexOf(FIELD_SEPARATOR, idEnd + 1);
      into.push(message(line.slice(0, idEnd), line.slice(idEnd + 1, timeEnd), line.slice(timeEnd + 1)));
      count++;
    }
    return count;
  }

  /**
   * Deletes this source's rows published longer ago than the retention; returns how many. Unpublished and
   * dead-lettered rows are never touched.
   */
  prunePublished(): Promise<number> {
    return this.pruning.prunePublished();
  }

  /**
   * Sends a topic's events in order (the producer splits them into requests within the topic's
   * max.message.bytes); adds those that can never be sent to `dead`, with the reason, having sent the others.
   */
  private async publish(topic: string, events: RelayedEvent[], dead: Map<RelayedEvent, string>): Promise<void> {
    let pending = events;
    let messages = events.map((event) => event.message);
    while (pending.length) {
      try {
        await withTimeout(this.producer.send(topic, messages), 20_000, `publishing to ${topic}`);
        break;
      } catch (error) {
        // A message larger than the topic allows: refused by send() before anything was produced, or by the
        // broker although it looked small enough (its limit is lower than read; the events before it may be
        // published again with the rest, consumers dedupe on the event id). It alone is dead-lettered.
        if (!(error instanceof MessageTooLargeError) || !pending[error.index]) throw error;
        const event = pending[error.index];
        dead.set(event, error.message);
        this.logger.error({
          msg: `outbox event ${event.id} (${topic}) dead-lettered: ${error.message}`,
          event_id: event.id,
          topic,
          reason: error.message,
        });
        pending = pending.filter((_, index) => index !== error.index);
        messages = messages.filter((_, index) => index !== error.index);
      }
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      this.poll.forget();
      let published = 0;
      try {
        published = await this.relayOnce();
        failures = 0;
      } catch (error) {
        failures++;
        this.logger.warn(`outbox relay (${this.options.source}) failed, will retry: ${errorMessage(error)}`);
      }
      if (published >= this.batchSize) continue;
      // Only when the relay has caught up: pruning never delays an event.
      if (!failures) await this.pruning.pruneWhenDue();
      if (!this.running) break;
      // After a failure the backoff holds against a poke kept from the pass (a poke during the wait still ends it).
      if (failures) this.poll.forget();
      await this.poll.wait(failures ? Math.min(30_000, this.pollMs * 2 ** failures) : this.pollMs);
    }
  }

  /**
   * Stops the loop, then publishes what is left (events committed by the last handlers), for at most
   * FLUSH_MS. Before application shutdown: the database and the producer close only after this.
   */
  async beforeApplicationShutdown(): Promise<void> {
    this.running = false;
    this.poll.wake();
    await this.loop;
    const deadline = Date.now() + FLUSH_MS;
    while (Date.now() < deadline) {
      try {
        if ((await this.relayOnce()) === 0) return;
      } catch (error) {
        this.logger.warn(`outbox relay (${this.options.source}) could not flush before shutdown: ${errorMessage(error)}`);
        return;
      }
    }
  }
}
