import type { EventEnvelope } from '@workline/contracts';
import { type Prisma, type Sql, type Statement, statement, timeOrderedUuid } from '@workline/db';
import { withRequestIdHeader } from '@workline/observability';
import { batchRowsOf, EVENT_SEPARATOR, FIELD_SEPARATOR } from './outbox-batch-rows';

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
      `${id}${FIELD_SEPARATOR}${occurredAt}${FIELD_SEPARATOR}{"id":"${id}","type":${type},` +
      `"occurred_at":"${occurredAt}","data":${dataJson[i]}}`;
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
