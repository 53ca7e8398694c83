/**
 * The transactional outbox's cost per event, in the app and in its PostgreSQL backend: libs/messaging's write
 * (enqueueEvents), the relay's read and mark (RELAY_READ, RELAY_MARK) and the Kafka message it prepares,
 * against the form they had before 2026-11-27 (the payload as jsonb, written from one jsonb recordset of whole
 * rows, read back in jsonb's text form and compacted). No Kafka: the messages are prepared, not produced.
 *
 *   npm run bench:outbox
 *
 * On two copies of messaging_outbox in a schema of the bench database (the current table, and one whose
 * payload is jsonb), alternating, four rounds. Each batch: 500 QC-event-shaped payloads (about 1.2 KB),
 * written in one transaction, then read, prepared and marked published in another, as the relay does.
 * Node's CPU from process.cpuUsage, the backend's from /proc (so PostgreSQL must run on this machine).
 * Settings: BENCH_OUTBOX_BATCHES (default 40) batches per measure.
 *
 * Then a CSV import's QC events as batch rows (enqueueEventBatchJson): 1,040 events a batch (a 2,000-row
 * import batch), written in one transaction, then relayed 500 events a pass (RELAY_READ, each row's lines split
 * as the relay splits them, every value copied into one buffer as a produce request would be, RELAY_MARK), in
 * libs/messaging's rows of at most BATCH_ROW_MAX_CHARS and in one row a batch (the form before 2026-11-29), with
 * the app's minor page faults per event beside its CPU.
 */
import { cloudEventHeaders, Topic } from '@workline/contracts';
import { DbPool, type Sql, statement } from '@workline/db';
import {
  BATCH_ROW_MAX_CHARS,
  compactJsonbText,
  compactPayload,
  enqueueEventBatchJson,
  enqueueEvents,
  type OutboxRow,
  RELAY_MARK,
  RELAY_READ,
} from '@workline/messaging';
import { randomUUID } from 'node:crypto';
import { ensurePostgres, startMigrations } from '../tools/stack/postgres';
import { profiles } from '../tools/stack/profiles';
import { processCpuMs } from './lib/common';

const BATCHES = Number(process.env.BENCH_OUTBOX_BATCHES ?? 40);
const BATCH = 500;
const SOURCE = 'bench-outbox';
const SCHEMA = 'bench_outbox';

/** A QC event's data as the performance service writes it (libs/performance qcEvent), about 1.2 KB of JSON. */
const qcEventData = (n: number) => ({
  record_id: randomUUID(),
  workstream_id: 'ws-bench-0001',
  account_id: 'acc-bench',
  reason: 'below_threshold',
  qc_score_threshold: 0.5,
  qc_sample_rate: 0.05,
  outcome: 'stored',
  upload_id: 'upl_bench',
  record: {
    use_case_id: 'uc-1',
    task_definition_id: 'td-1',
    dataset_id: 'ds-1',
    asset_id: `asset-${n}`,
    task_id: `task-${n}`,
    unique_id: `row-${n}`,
    task_url: `https://tasks.example/${n}`,
    task_completed_at: '2024-05-01T12:00:00.000Z',
    worker_id: 'worker-0042',
    review_completed_at: '2024-05-01T12:05:00.000Z',
    review_duration: 12.5,
    reviewed_by: 'reviewer-7',
    review_score: 0.3,
    review_explanation: 'The box around the second pedestrian is loose; see the notes. '.repeat(6),
    errors: { missing_box: 1, loose_box: 2 },
    review_type: 'full',
    task_review_count: 1,
    subtask_review_count: 2,
    review_metadata: { batch: 'b-1' },
    review_measurements: { iou: 0.82 },
  },
});

/** The form before: one jsonb parameter of whole rows, the payload parsed into jsonb. */
const WRITE_BEFORE = statement(
  'bench_outbox_write_before',
  `insert into outbox_before (id, source, topic, key, payload, headers)
   select id, source, topic, key, payload, headers
   from jsonb_to_recordset($1::jsonb) as x(id text, source text, topic text, key text, payload jsonb, headers jsonb)`,
);
const READ_BEFORE = statement(
  'bench_outbox_read_before',
  `select seq::text as seq, id, topic, key, payload::text as payload, headers::text as headers,
     payload->>'id' as ce_id, payload->>'type' as ce_type, payload->>'occurred_at' as ce_time
   from outbox_before
   where source = $1 and published_at is null and dead_lettered_at is null
   order by outbox_before.seq limit $2`,
);
const MARK_BEFORE = statement(
  'bench_outbox_mark_before',
  `update outbox_before o set published_at = now() from unnest($1::bigint[]) as d(seq) where o.seq = d.seq`,
);

/** A row as each form's read returns it: the relay's row, and in the form before the envelope's id and type. */
type ReadRow = OutboxRow & { ce_id?: string; ce_type?: string };

/** What the relay hands the producer for a row (OutboxRelay.messageOf, with the payload as each form sends it). */
const message = (row: ReadRow, value: string) => {
  const headers: Record<string, string> = row.headers ? (JSON.parse(row.headers) as Record<string, string>) : {};
  Object.assign(
    headers,
    cloudEventHeaders({ id: row.ce_id ?? row.id, type: row.ce_type ?? row.topic, occurred_at: row.ce_time as string }, SOURCE),
  );
  headers['event-id'] = row.id;
  return { key: row.key, value, headers };
};

const events = (batch: number) =>
  Array.from({ length: BATCH }, (_, i) => ({
    data: qcEventData(batch * BATCH + i),
    key: 'ws-bench-0001',
    headers: { 'request-id': randomUUID() },
  }));

const forms: Record<'before' | 'after', { write: (sql: Sql, batch: number) => Promise<void>; relay: (sql: Sql) => Promise<number> }> = {
  before: {
    write: async (sql, batch) => {
      const occurredAt = new Date().toISOString();
      const rows = events(batch).map(({ data, key, headers }) => {
        const id = randomUUID();
        return {
          id,
          source: SOURCE,
          topic: Topic.QualityReviewForQc,
          key,
          payload: { id, type: Topic.QualityReviewForQc, occurred_at: occurredAt, data },
          headers,
        };
      });
      await sql.query(WRITE_BEFORE, [JSON.stringify(rows)]);
    },
    relay: async (sql) => {
      const rows = await sql.query<ReadRow>(READ_BEFORE, [SOURCE, BATCH]);
      const messages = rows.map((row) => message(row, compactJsonbText(row.payload)));
      await sql.query(MARK_BEFORE, [rows.map((row) => row.seq)]);
      return messages.length;
    },
  },
  after: {
    write: async (sql, batch) => {
      await enqueueEvents(sql, SOURCE, Topic.QualityReviewForQc, events(batch));
    },
    relay: async (sql) => {
      const rows = await sql.query<ReadRow>(RELAY_READ, [`outbox:${SOURCE}`, SOURCE, BATCH]);
      const messages = rows.map((row) => message(row, compactPayload(row.payload)));
      await sql.query(RELAY_MARK, [rows.map((row) => row.seq), rows.map(() => null)]);
      return messages.length;
    },
  },
};

/** The QC events of one 2,000-row import batch, as the import hands them over: each event's data as JSON text. */
const IMPORT_BATCH_EVENTS = 1_040;
const importBatchData = (batch: number) =>
  Array.from({ length: IMPORT_BATCH_EVENTS }, (_, i) => JSON.stringify(qcEventData(batch * IMPORT_BATCH_EVENTS + i)));

/** The form before 2026-11-29: a batch's events as one row, whatever its length (libs/messaging's line format). */
const WRITE_ONE_ROW = statement(
  'bench_outbox_write_one_row',
  `insert into messaging_outbox (id, source, topic, key, headers, events, event_count) values ($1, $2, $3, $4, $5::jsonb, $6, $7)`,
);

const batchForms: Record<'oneRow' | 'bounded', (sql: Sql, batch: number) => Promise<void>> = {
  oneRow: async (sql, batch) => {
    const occurredAt = new Date().toISOString();
    const type = JSON.stringify(Topic.QualityReviewForQc);
    const lines = importBatchData(batch).map((data) => {
      const id = randomUUID();
      return `${id}\t${occurredAt}\t{"id":"${id}","type":${type},"occurred_at":"${occurredAt}","data":${data}}`;
    });
    await sql.query(WRITE_ONE_ROW, [randomUUID(), SOURCE, Topic.QualityReviewForQc, 'ws-bench-0001', null, lines.join('\n'), lines.length]);
  },
  bounded: async (sql, batch) => {
    await enqueueEventBatchJson(sql, SOURCE, Topic.QualityReviewForQc, importBatchData(batch), { key: 'ws-bench-0001' });
  },
};

/** One relay pass over batch rows: the events' values copied into one buffer, as a produce request holds them. */
async function relayBatchRows(sql: Sql): Promise<number> {
  const rows = await sql.query<ReadRow>(RELAY_READ, [`outbox:${SOURCE}`, SOURCE, BATCH]);
  const values: string[] = [];
  for (const row of rows)
    for (const line of (row.events as string).split('\n')) values.push(line.slice(line.indexOf('\t', line.indexOf('\t') + 1) + 1));
  const request = Buffer.allocUnsafe(values.reduce((bytes, value) => bytes + Buffer.byteLength(value), 0));
  values.reduce((offset, value) => offset + request.write(value, offset), 0);
  await sql.query(RELAY_MARK, [rows.map((row) => row.seq), rows.map(() => null)]);
  return values.length;
}

async function main(): Promise<void> {
  const url = profiles.bench.databaseUrl;
  const { stop } = await ensurePostgres(url);
  await startMigrations(url);
  const admin = new DbPool(url, { size: 1 });
  const setup = (sql: string) => admin.query(statement(`bench_outbox_setup_${randomUUID()}`, sql));
  await setup(`drop schema if exists ${SCHEMA} cascade`);
  await setup(`create schema ${SCHEMA}`);
  await setup(`create table ${SCHEMA}.messaging_outbox (like public.messaging_outbox including all)`);
  await setup(`create table ${SCHEMA}.outbox_before (like public.messaging_outbox including all)`);
  await setup(`alter table ${SCHEMA}.outbox_before alter column payload type jsonb`);
  const inSchema = new URL(url);
  inSchema.searchParams.set('options', `-c search_path=${SCHEMA}`);
  const db = new DbPool(inSchema.toString(), { size: 1 });
  const [{ pid }] = await db.query<{ pid: number }>(statement('bench_outbox_backend', 'select pg_backend_pid() as pid'));

  const figures: Record<'before' | 'after', { node: number[]; postgres: number[] }> = {
    before: { node: [], postgres: [] },
    after: { node: [], postgres: [] },
  };
  for (let round = 0; round < 4; round++) {
    for (const form of ['before', 'after'] as const) {
      const node = process.cpuUsage();
      const backend = processCpuMs(pid);
      for (let batch = 0; batch < BATCHES; batch++) {
        await db.transaction((sql) => forms[form].write(sql, batch));
        const relayed = await db.transaction((sql) => forms[form].relay(sql));
        if (relayed !== BATCH) throw new Error(`the ${form} relay read ${relayed} rows, expected ${BATCH}`);
      }
      const used = process.cpuUsage(node);
      figures[form].node.push((used.user + used.system) / (BATCHES * BATCH));
      figures[form].postgres.push(((processCpuMs(pid) - backend) * 1000) / (BATCHES * BATCH));
    }
  }
  const range = (values: number[]) => `${Math.min(...values).toFixed(1)}–${Math.max(...values).toFixed(1)}`;
  console.log(`== outbox: ${BATCHES} batches of ${BATCH} QC events per measure, four rounds (µs of CPU per event)`);
  console.log('| | before (jsonb recordset, compacted on read) | libs/messaging (json, arrays) |');
  console.log('|---|---:|---:|');
  console.log(`| the app: write, read, the Kafka message | ${range(figures.before.node)} | ${range(figures.after.node)} |`);
  console.log(`| PostgreSQL backend: insert, read, mark, commits | ${range(figures.before.postgres)} | ${range(figures.after.postgres)} |`);

  const batchFigures: Record<'oneRow' | 'bounded', { node: number[]; postgres: number[]; faults: number[] }> = {
    oneRow: { node: [], postgres: [], faults: [] },
    bounded: { node: [], postgres: [], faults: [] },
  };
  const importBatches = Math.ceil((BATCHES * BATCH) / IMPORT_BATCH_EVENTS);
  for (let round = 0; round < 4; round++) {
    for (const form of ['oneRow', 'bounded'] as const) {
      const node = process.cpuUsage();
      const faults = process.resourceUsage().minorPageFault;
      const backend = processCpuMs(pid);
      for (let batch = 0; batch < importBatches; batch++) {
        await db.transaction((sql) => batchForms[form](sql, batch));
        let relayed = 0;
        for (let pass; (pass = await db.transaction(relayBatchRows)) > 0;) relayed += pass;
        if (relayed !== IMPORT_BATCH_EVENTS)
          throw new Error(`the relay read ${relayed} events of a batch row, expected ${IMPORT_BATCH_EVENTS}`);
      }
      const used = process.cpuUsage(node);
      const events = importBatches * IMPORT_BATCH_EVENTS;
      batchFigures[form].node.push((used.user + used.system) / events);
      batchFigures[form].faults.push(((process.resourceUsage().minorPageFault - faults) * 1000) / events);
      batchFigures[form].postgres.push(((processCpuMs(pid) - backend) * 1000) / events);
    }
  }
  console.log(
    `\n== QC event batches: ${importBatches} batches of ${IMPORT_BATCH_EVENTS} events per measure, four rounds (µs of CPU per event)`,
  );
  console.log(`| | one row a batch (before 2026-11-29) | rows of at most ${BATCH_ROW_MAX_CHARS.toLocaleString('en-US')} characters |`);
  console.log('|---|---:|---:|');
  console.log(
    `| the app: write, read, split, the request's bytes | ${range(batchFigures.oneRow.node)} | ${range(batchFigures.bounded.node)} |`,
  );
  console.log(
    `| the app's minor page faults per 1,000 events | ${range(batchFigures.oneRow.faults)} | ${range(batchFigures.bounded.faults)} |`,
  );
  console.log(
    `| PostgreSQL backend: insert, read, mark, commits | ${range(batchFigures.oneRow.postgres)} | ` +
      `${range(batchFigures.bounded.postgres)} |`,
  );
  await setup(`drop schema ${SCHEMA} cascade`);
  await db.end();
  await admin.end();
  await stop();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
