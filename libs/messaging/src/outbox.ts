import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { cloudEventHeaders, errorMessage, type EventEnvelope } from '@workline/contracts';
import { DbPool, PollWait, type Prisma, type Sql, type Statement, statement, timeOrderedUuid } from '@workline/db';
import { type AppMetrics, withRequestIdHeader } from '@workline/observability';
import { type KafkaProducer, MessageTooLargeError, type OutgoingMessage, withTimeout } from './producer';
import { PRUNE_CHUNK, pruneAll } from './prune';

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
  const id = timeOrderedUuid();
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

/**
 * The table every app's outbox rows go into, and the columns an event is written with, typed as they travel
 * in a jsonb recordset (a statement writing events beside the change that causes them): the payload as
 * jsonb, which becomes the column's json text when written.
 */
export const OUTBOX_TABLE = 'messaging_outbox';
export const OUTBOX_ROW_COLUMNS: [string, string][] = [
  ['id', 'text'],
  ['source', 'text'],
  ['topic', 'text'],
  ['key', 'text'],
  ['payload', 'jsonb'],
  ['headers', 'jsonb'],
];

/**
 * Events of one source and topic: ids, keys and headers as arrays, the payloads as one JSON array whose
 * elements PostgreSQL keeps as the text they are (json), in the order given, which seq follows. A jsonb
 * recordset of whole rows cost about twice as much a row to write (docs/benchmarks.md, "The outbox keeps
 * the payload's text").
 */
const INSERT_OUTBOX_ROWS = statement(
  'outbox_insert_rows',
  `insert into ${OUTBOX_TABLE} (id, source, topic, key, payload, headers)
   select x.id, $1, $2, x.key, p.payload, x.headers::jsonb
   from unnest($3::text[], $4::text[], $5::text[]) with ordinality as x(id, key, headers, n)
   join json_array_elements($6::json) with ordinality as p(payload, n) using (n)
   order by n`,
);

/** An event to enqueue: its data, its Kafka key, and its headers when they are not the current request's. */
export interface OutboxEventInput<T> {
  data: T;
  key?: string;
  headers?: Record<string, string>;
}

/** An event as the outbox row it becomes (OUTBOX_ROW_COLUMNS), before it is written. */
export interface OutboxRowInput<T = unknown> {
  id: string;
  source: string;
  topic: string;
  key: string | null;
  payload: EventEnvelope<T>;
  headers: Record<string, string> | null;
}

/**
 * The outbox rows of events, each with a new event id, for enqueueEvents or for a statement that writes
 * them together with the change that causes them (a data-modifying CTE selecting from them).
 */
export function outboxRows<T>(source: string, topic: string, events: OutboxEventInput<T>[]): OutboxRowInput<T>[] {
  const occurredAt = new Date().toISOString();
  const current = withRequestIdHeader(undefined) ?? null;
  return events.map(({ data, key, headers }) => {
    const id = timeOrderedUuid();
    // A batch holds the events of several requests: each says whose it is, else the current request's.
    return {
      id,
      source,
      topic,
      key: key ?? null,
      payload: { id, type: topic, occurred_at: occurredAt, data },
      headers: headers ?? current,
    };
  });
}

/**
 * enqueueEvent for many events in one statement, on a raw-SQL transaction (hot paths: record
 * submissions, bulk imports): one round trip whatever the number of events. Returns the event ids in the
 * order given.
 */
export async function enqueueEvents<T>(sql: Sql, source: string, topic: string, events: OutboxEventInput<T>[]): Promise<string[]> {
  if (!events.length) return [];
  const rows = outboxRows(source, topic, events);
  await sql.query(INSERT_OUTBOX_ROWS, [
    source,
    topic,
    rows.map((row) => row.id),
    rows.map((row) => row.key),
    rows.map((row) => (row.headers ? JSON.stringify(row.headers) : null)),
    JSON.stringify(rows.map((row) => row.payload)),
  ]);
  return rows.map((row) => row.id);
}

/**
 * Where a batch row's events are split: one event a line, its fields by tabs. JSON.stringify escapes every
 * line break and tab inside a string, and event ids and ISO times hold none, so neither can occur in a field.
 */
const EVENT_SEPARATOR = '\n';
const FIELD_SEPARATOR = '\t';

/**
 * Most characters of events one batch row holds: below V8's large-object size (128 KB for a one-byte string),
 * so neither the row's text as the writer joins it nor as the relay reads it back is a large object. Each of
 * those gets pages mapped for it and unmapped when it is collected, and on a VM every page touched afresh
 * costs a fault: a CSV import's 1 MB rows cost it about 14 µs of CPU per QC event that way (docs/benchmarks.md,
 * "Outbox rows below V8's large-object size"). An event larger than this alone gets a row of its own.
 */
export const BATCH_ROW_MAX_CHARS = 100_000;

/** Batch rows one INSERT writes at most: a prepared statement for each count up to this. */
const BATCH_ROWS_PER_STATEMENT = 16;

/**
 * An INSERT of `rows` batch rows sharing their source ($1), topic ($2), key ($3) and headers ($4), each with
 * its id, events and count after them; rows get their seq in the order written. The events travel as plain
 * text parameters: in a text[] parameter node-postgres would escape every quote of the JSON (an array
 * literal), and PostgreSQL parse it back, about a third more CPU for the import in both (measured,
 * docs/benchmarks.md "Event batches in the outbox").
 */
const insertOutboxBatches = (rows: number): Statement =>
  statement(
    `outbox_insert_batch_${rows}`,
    `insert into ${OUTBOX_TABLE} (id, source, topic, key, headers, events, event_count) values ${Array.from(
      { length: rows },
      (_, row) => `($${5 + 3 * row}, $1, $2, $3, $4::jsonb, $${6 + 3 * row}, $${7 + 3 * row})`,
    ).join(', ')}`,
  );
/** By the number of rows less one. */
const INSERT_OUTBOX_BATCHES = Array.from({ length: BATCH_ROWS_PER_STATEMENT }, (_, index) => insertOutboxBatches(index + 1));

/** Lines in order, cut into runs of at most maxChars characters (separators counted); a longer line is a run alone. */
export function batchRowsOf(lines: string[], maxChars = BATCH_ROW_MAX_CHARS): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (row.length && chars + 1 + line.length > maxChars) {
      rows.push(row);
      row = [];
      chars = 0;
    }
    chars += (row.length ? 1 : 0) + line.length;
    row.push(line);
  }
  if (row.length) rows.push(row);
  return rows;
}

/**
 * Many events of one topic and key as ONE outbox row (bulk writers: a CSV import's QC events), in the
 * caller's raw-SQL transaction: one row to insert, read and mark whatever the number of events, where
 * enqueueEvents writes a row each (docs/decisions.md, "Event batches in the outbox"). The relay sends them
 * as separate Kafka messages, in the order given, each with its own event id; `headers` (else the current
 * request's) go with every one. Returns the event ids in the order given.
 */
export function enqueueEventBatch<T>(sql: Sql, source: string, topic: string, events: T[], options: EventBatchOptions): Promise<string[]> {
  return enqueueEventBatchJson(
    sql,
    source,
    topic,
    events.map((data) => JSON.stringify(data)),
    options,
  );
}

export interface EventBatchOptions {
  key: string | null;
  headers?: Record<string, string>;
}

/**
 * enqueueEventBatch for events whose data the caller has as JSON text already (JSON.stringify's form):
 * each envelope is written around it, the same text as JSON.stringify of the whole envelope.
 */
export async function enqueueEventBatchJson(
  sql: Sql,
  source: string,
  topic: string,
  dataJson: string[],
  options: EventBatchOptions,
): Promise<string[]> {
  if (!dataJson.length) return [];
  // A raw line break or tab (pretty-printed JSON) would cut the line or its fields where the relay and the view split them.
  const unsplittable = dataJson.findIndex((json) => json.includes(EVENT_SEPARATOR) || json.includes(FIELD_SEPARATOR));
  if (unsplittable >= 0) throw new Error(`event ${unsplittable} of the batch is not compact JSON: it holds a raw line break or tab`);
  const occurredAt = new Date().toISOString();
  const type = JSON.stringify(topic);
  const ids = new Array<string>(dataJson.length);
  const lines = new Array<string>(dataJson.length);
  for (let i = 0; i < dataJson.length; i++) {
    const id = timeOrderedUuid();
    ids[i] = id;
    // Ids and ISO times need no escaping; the key order is EventEnvelope's.
    lines[i] =
      `${id}${FIELD_SEPARATOR}${occurredAt}${FIELD_SEPARATOR}{"id":"${id}","type":${type},"occurred_at":"${occurredAt}","data":${dataJson[i]}}`;
  }
  const headers = options.headers ?? withRequestIdHeader(undefined);
  const headersJson = headers ? JSON.stringify(headers) : null;
  const rows = batchRowsOf(lines);
  // All of a batch's rows in one statement, nearly always (more than BATCH_ROWS_PER_STATEMENT rows is rare).
  for (let first = 0; first < rows.length; first += BATCH_ROWS_PER_STATEMENT) {
    const written = rows.slice(first, first + BATCH_ROWS_PER_STATEMENT);
    const values: unknown[] = [source, topic, options.key, headersJson];
    for (const row of written) values.push(timeOrderedUuid(), row.join(EVENT_SEPARATOR), row.length);
    await sql.query(INSERT_OUTBOX_BATCHES[written.length - 1], values);
  }
  return ids;
}

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
interface RelayedEvent {
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
 * Events of batch rows that can never be published, each as a dead-lettered row of its own (the batch row
 * itself is marked published with the rest of its events).
 */
const RELAY_DEAD_EVENTS = statement(
  'outbox_relay_dead_events',
  `insert into messaging_outbox (id, source, topic, key, payload, headers, dead_lettered_at, dead_letter_reason)
   select x.id, $1, x.topic, x.key, x.payload::json, x.headers::jsonb, now(), x.reason
   from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as x(id, topic, key, payload, headers, reason)`,
);

/** Marks a batch's rows, one statement: published, or dead-lettered with the reason (reason not null). */
export const RELAY_MARK = statement(
  'outbox_relay_mark',
  `update messaging_outbox o set
     published_at = case when d.reason is null then now() end,
     dead_lettered_at = case when d.reason is not null then now() end,
     dead_letter_reason = d.reason
   from unnest($1::bigint[], $2::text[]) as d(seq, reason)
   where o.seq = d.seq`,
);

/**
 * Deletes up to $3 of the source's rows published more than $2 ms ago. created_at comes first: its BRIN
 * index (rows are written in time order) finds the old pages without reading the young ones, and a row is
 * always published after it was written.
 */
const PRUNE_PUBLISHED = statement(
  'outbox_prune_published',
  `with gone as (
     delete from messaging_outbox where seq in (
       select seq from messaging_outbox
       where created_at < now() - $2 * interval '1 millisecond' and source = $1
         and published_at < now() - $2 * interval '1 millisecond'
       limit $3)
     returning 1)
   select count(*)::int as deleted from gone`,
);

const BACKLOG = statement(
  'outbox_backlog',
  `select coalesce(sum(coalesce(event_count, 1)), 0)::int as count
   from messaging_outbox where source = $1 and published_at is null and dead_lettered_at is null`,
);
const DEAD_LETTERS = statement(
  'outbox_dead_letters',
  'select count(*)::int as count from messaging_outbox where source = $1 and dead_lettered_at is not null',
);

/**
 * PostgreSQL's text form of a jsonb value puts one space after every `,` and `:` outside strings and no
 * other whitespace; without those spaces it is what JSON.stringify makes of the parsed value (the bytes
 * the relay sent when it parsed payloads), at a fraction of the cost and with no object graph. Payloads
 * are kept as written (json) since 2026-11-27; those built in SQL with jsonb functions (a submission's QC
 * event) and rows written before still read back in jsonb's form.
 */
export function compactJsonbText(text: string): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 32 || c === 10 || c === 9 || c === 13) {
      out += text.slice(from, i);
      from = i + 1;
    }
  }
  return from === 0 ? text : out + text.slice(from);
}

/**
 * An envelope's JSON as sent: JSON.stringify's form. An object in jsonb's text form has `": ` after its
 * first key, which JSON.stringify's never has outside a string, so a payload without it is compact already
 * and is not scanned (a string holding it only costs the scan).
 */
export function compactPayload(text: string): string {
  return text.startsWith('{') && !text.includes('": ') ? text : compactJsonbText(text);
}

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
  private readonly retentionMs: number;
  private nextPruneAt = 0;

  constructor(
    private readonly db: DbPool,
    private readonly producer: KafkaProducer,
    private readonly options: OutboxRelayOptions,
  ) {
    this.pollMs = options.pollMs ?? 500;
    this.batchSize = options.batchSize ?? 500;
    this.lockKey = `outbox:${options.source}`;
    this.retentionMs = options.retentionMs ?? 0;
    options.metrics?.gauge('outbox_backlog', 'Outbox rows written but not yet published to Kafka, by source app', ['source'], async () => {
      const [{ count }] = await this.db.query<{ count: number }>(BACKLOG, [options.source]);
      return [{ labels: { source: options.source }, value: count }];
    });
    options.metrics?.gauge(
      'outbox_dead_letters',
      'Outbox rows that can never be published (e.g. larger than the topic allows), dead-lettered with the reason in messaging_outbox.dead_letter_reason, by source app',
      ['source'],
      async () => {
        const [{ count }] = await this.db.query<{ count: number }>(DEAD_LETTERS, [options.source]);
        return [{ labels: { source: options.source }, value: count }];
      },
    );
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
      const seqs = new Array<string>(rows.length);
      const reasons = new Array<string | null>(rows.length);
      const deadOfRow = new Map<OutboxRow, string>();
      const deadInBatches: [RelayedEvent, string][] = [];
      for (const [event, reason] of dead) {
        if (event.row.events === null) deadOfRow.set(event.row, reason);
        else deadInBatches.push([event, reason]);
      }
      for (let i = 0; i < rows.length; i++) {
        seqs[i] = rows[i].seq;
        reasons[i] = deadOfRow.get(rows[i]) ?? null;
      }
      if (deadInBatches.length) await this.deadLetterBatchEvents(sql, deadInBatches);
      await sql.query(RELAY_MARK, [seqs, reasons]);
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

  /** Gives each event of a batch row that can never be published a dead-lettered row of its own, with the reason. */
  private async deadLetterBatchEvents(sql: Sql, events: [RelayedEvent, string][]): Promise<void> {
    await sql.query(RELAY_DEAD_EVENTS, [
      this.options.source,
      events.map(([event]) => event.id),
      events.map(([event]) => event.row.topic),
      events.map(([event]) => event.row.key),
      events.map(([event]) => event.message.value as string),
      events.map(([event]) => event.row.headers),
      events.map(([, reason]) => reason),
    ]);
  }

  /**
   * Deletes this source's rows published longer ago than the retention; returns how many. Unpublished and
   * dead-lettered rows are never touched.
   */
  prunePublished(): Promise<number> {
    return pruneAll(() => this.pruneChunk());
  }

  private async pruneChunk(): Promise<number> {
    if (!this.retentionMs) return 0;
    const [{ deleted }] = await this.db.query<{ deleted: number }>(PRUNE_PUBLISHED, [this.options.source, this.retentionMs, PRUNE_CHUNK]);
    return deleted;
  }

  /**
   * One chunk of pruning when it is due: every `pruneEveryMs`, or at the next idle turn while a full chunk
   * says more is waiting (a long-kept outbox is worked down a chunk a turn, never holding events back).
   */
  private async pruneWhenDue(): Promise<void> {
    if (Date.now() < this.nextPruneAt) return;
    let deleted = 0;
    try {
      deleted = await this.pruneChunk();
      if (deleted) this.logger.log(`outbox (${this.options.source}): ${deleted} published rows past their retention deleted`);
    } catch (error) {
      this.logger.warn(`outbox prune (${this.options.source}) failed: ${errorMessage(error)}`);
    }
    this.nextPruneAt = deleted === PRUNE_CHUNK ? 0 : Date.now() + (this.options.pruneEveryMs ?? 60_000);
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
      if (!failures) await this.pruneWhenDue();
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
