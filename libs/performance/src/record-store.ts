import { type QcReason, type QualityReviewForQcEvent, type QualityReviewRecordData, ServiceName, Topic } from '@workline/contracts';
import { type Sql, statement, timeOrderedUuid } from '@workline/db';
import { OUTBOX_ROW_COLUMNS, OUTBOX_TABLE, outboxRows } from '@workline/messaging';
import type { PerformanceKind, QualityRecordInput, RecordInputOf, WorkstreamConfig } from './record-rules';

export type StoreOutcome = 'stored' | 'replaced' | 'ignored';

/** Columns both record tables have. */
const SHARED_COLUMNS: [string, string][] = [
  'use_case_id',
  'task_definition_id',
  'unique_id',
  'dataset_id',
  'asset_id',
  'task_id',
  'task_url',
].map((name) => [name, 'text']);

/** Table and columns (with their PostgreSQL types) of each kind; the attribute columns are what a repeat replaces. */
export const TABLES: Record<PerformanceKind, { table: string; columns: [string, string][] }> = {
  quality: {
    table: 'performance_quality_record',
    columns: [
      ...SHARED_COLUMNS,
      ['task_completed_at', 'timestamptz'],
      ['worker_id', 'text'],
      ['review_completed_at', 'timestamptz'],
      ['review_duration', 'double precision'],
      ['reviewed_by', 'text'],
      ['review_score', 'double precision'],
      ['review_explanation', 'text'],
      ['errors', 'jsonb'],
      ['review_type', 'text'],
      ['task_review_count', 'int'],
      ['subtask_review_count', 'int'],
      ['review_metadata', 'jsonb'],
      ['review_measurements', 'jsonb'],
    ],
  },
  throughput: {
    table: 'performance_throughput_record',
    columns: [
      ...SHARED_COLUMNS,
      ['worker_id', 'text'],
      ['task_started_at', 'timestamptz'],
      ['task_completed_at', 'timestamptz'],
      ['duration_seconds', 'double precision'],
      ['task_count', 'int'],
      ['subtask_count', 'int'],
      ['task_metadata', 'jsonb'],
    ],
  },
};

/**
 * The dedupe key, in the order of its unique index (migration 20261129150000_record_key_unique_id_first):
 * unique_id first, the column that tells records apart. Writers lock rows in this order.
 */
export const KEY_COLUMNS = ['unique_id', 'workstream_id', 'use_case_id', 'task_definition_id'];

/** What the batch's statement returns of each row it inserted or updated (of `alias`'s row if given). */
const returnedOf = (alias = '') => ['id::text as id', ...KEY_COLUMNS].map((column) => alias + column).join(', ');
const RETURNED = returnedOf();

/** `a` and `b` name rows of the same key (SQL). */
const sameKey = (a: string, b: string) => KEY_COLUMNS.map((name) => `${a}.${name} = ${b}.${name}`).join(' and ');

/** The RPC request that last wrote a row with a unique_id, and its answer (stored, replaced). */
const LAST_REQUEST_COLUMNS: [string, string][] = [
  ['last_request_id', 'text'],
  ['last_request_outcome', 'text'],
];

/**
 * A QC event that may be written with its record: its outbox row with the record id and outcome still to
 * fill in, the planned row (its new id and key) and which record of it the event is for. The statement
 * writes it when that record is written (settleStore's rule, in SQL): a later record of the row always;
 * the first when it inserted the row, or replaced it by its own replace_duplicate.
 */
const QC_CANDIDATE_COLUMNS: [string, string][] = [
  ...OUTBOX_ROW_COLUMNS,
  ['ord', 'int'],
  ['row_id', 'text'],
  ...KEY_COLUMNS.map((name): [string, string] => [name, 'text']),
  ['is_first', 'boolean'],
  ['first_replaces', 'boolean'],
];

/**
 * The whole batch in one statement, so one round trip and no BEGIN or COMMIT: a single statement is atomic
 * and durable by itself. Each set of rows travels as one jsonb parameter (no parameter limit), prepared
 * once per connection; rows of several workstreams may travel together. $1: rows that replace an existing
 * row of their key (do update), $2: rows that keep it (do nothing; also every row without a unique_id,
 * skipped when its RPC request already stored it), $3 (quality): the QC candidates, written to the outbox
 * in their order for the records written. The two inserts never touch the same key (planStore gives each
 * key one row), so running them side by side in one statement is safe. A QC candidate finds its written row
 * by key, or by the row's planned id when it has no unique_id: two equality joins (hashed), not one join on
 * `id or key`, which only a nested loop can run (a million comparisons, 220 ms, for 1,000 records).
 *
 * A row with a unique_id carries the request that writes it (last_request_id) and that request's answer.
 * A replace by the request that wrote the row last is skipped: that is the same request read again after a
 * crash (docs/decisions.md, "A request read again"). `repeated` finds such rows among those neither insert
 * wrote (only those are looked up) and returns them with the answer their request gave, so it answers the
 * same and, not being `written`, causes no QC event. The lookup is a LATERAL subquery with a LIMIT (a key has
 * one row anyway) so that it stays one probe of the key index per row: joined plainly, the planner took the
 * recordsets for 100 rows each and hashed the whole record table for every batch until the table was large
 * (record-store-plans.integration-spec.ts).
 */
function writeBatch(kind: PerformanceKind) {
  const { table, columns } = TABLES[kind];
  const all: [string, string][] = [
    ['id', 'uuid'],
    ['workstream_id', 'text'],
    ...columns,
    ['upload_id', 'text'],
    ['rpc_request_id', 'text'],
    ...LAST_REQUEST_COLUMNS,
  ];
  const names = all.map(([name]) => name).join(', ');
  const keyNames = KEY_COLUMNS.join(', ');
  const recordset = (parameter: string) =>
    `jsonb_to_recordset(${parameter}::jsonb) as x(${all.map(([name, type]) => `${name} ${type}`).join(', ')})`;
  const replacing = [...columns.filter(([name]) => !KEY_COLUMNS.includes(name)).map(([name]) => name), 'upload_id']
    .map((name) => `${name} = excluded.${name}`)
    .join(', ');
  const upserts = `replacing as (select * from ${recordset('$1')}),
    keeping as (select * from ${recordset('$2')}),
    replaced as (
      insert into ${table} (${names}) select ${names} from replacing
      on conflict (${keyNames}) do update set ${replacing}, updated_at = now(),
        last_request_id = excluded.last_request_id, last_request_outcome = 'replaced'
      where excluded.last_request_id is null or excluded.last_request_outcome = 'replaced'
        or ${table}.last_request_id is distinct from excluded.last_request_id
      returning ${RETURNED}),
    kept as (
      insert into ${table} (${names}) select ${names} from keeping
      on conflict do nothing
      returning ${RETURNED}),
    written as (select * from replaced union all select * from kept),
    unwritten as (
      select ${keyNames}, last_request_id
      from (select ${keyNames}, last_request_id from replacing union all select ${keyNames}, last_request_id from keeping) x
      where last_request_id is not null
        and not exists (select 1 from written w where ${sameKey('w', 'x')})),
    repeated as (
      select t.* from unwritten x cross join lateral (
        select ${returnedOf('t.')}, t.last_request_outcome as repeat_of from ${table} t
        where ${sameKey('t', 'x')} and t.last_request_id = x.last_request_id
        limit 1) t)`;
  const returned = `select *, null::text as repeat_of from written union all select * from repeated`;
  if (kind !== 'quality') {
    return statement(`performance_${kind}_write_batch`, `with ${upserts} ${returned}`);
  }
  const outcome = `case when e.is_first and e.written_id = e.row_id then 'stored' else 'replaced' end`;
  const payload =
    `jsonb_set(jsonb_set(e.payload, '{data,record_id}', to_jsonb(e.written_id)), '{data,outcome}', ` +
    `to_jsonb((${outcome})::text))::json`;
  return statement(
    `performance_${kind}_write_batch`,
    `with ${upserts},
    qc_candidates as (
      select * from jsonb_to_recordset($3::jsonb) as e(${QC_CANDIDATE_COLUMNS.map(([name, type]) => `${name} ${type}`).join(', ')})),
    qc_written as (
      select e.*, w.id as written_id from qc_candidates e join written w on w.id = e.row_id where e.unique_id is null
      union all
      select e.*, w.id from qc_candidates e join written w on ${sameKey('w', 'e')} where e.unique_id is not null),
    qc_events as (
      insert into ${OUTBOX_TABLE} (${OUTBOX_ROW_COLUMNS.map(([name]) => name).join(', ')})
      select ${OUTBOX_ROW_COLUMNS.map(([name]) => (name === 'payload' ? payload : `e.${name}`)).join(', ')}
      from qc_written e
      where not e.is_first or e.written_id = e.row_id or e.first_replaces
      order by e.ord
      returning 1)
    ${returned}`,
  );
}

const WRITE_BATCH = { quality: writeBatch('quality'), throughput: writeBatch('throughput') };

/** What identifies a record for the unique_id rule. */
export interface KeyFields {
  workstream_id: string;
  use_case_id: string;
  task_definition_id: string;
  unique_id: string | null;
}

/** A record's key as one string whose order is KEY_COLUMNS's (so the batch's row order is the index's). */
const dedupeKey = (r: KeyFields) =>
  r.unique_id === null ? undefined : [r.unique_id, r.workstream_id, r.use_case_id, r.task_definition_id].join('\u0000');

/** One row of the upsert: the first record of a key, and the later ones of the batch that replace it. */
export interface PlannedRow<R> {
  /** The id the row gets if it is new. */
  id: string;
  /** Index of the first record of its key. */
  first: number;
  /** Indexes of the later records of the key with replace_duplicate true: each replaced the one before. */
  replacedBy: number[];
  /** The attributes the row ends up with: the last replacing record, else the first. */
  record: R;
  /** Whether the upsert replaces an existing row: the first record does, or a later one in the batch does. */
  replace: boolean;
}

export interface StorePlan<R> {
  rows: PlannedRow<R>[];
  /** The later repeats that do not replace: ignored whatever the database holds. */
  ignored: number[];
}

/**
 * Settles the repeats inside one batch as if the records came one after the other (one INSERT may not
 * touch a row twice): the first record of a key takes the database's outcome, each later one with
 * replace_duplicate true replaces the record before it, each later one with false is ignored. Rows are in
 * key order, so concurrent batches lock rows in the same order.
 */
export function planStore<R extends KeyFields & { replace_duplicate: boolean }>(
  records: R[],
  newId: () => string = timeOrderedUuid,
): StorePlan<R> {
  const rows: PlannedRow<R>[] = [];
  const ignored: number[] = [];
  const byKey = new Map<string, PlannedRow<R>>();
  records.forEach((record, index) => {
    const key = dedupeKey(record);
    const earlier = key === undefined ? undefined : byKey.get(key);
    if (!earlier) {
      // Without a key nothing is replaced: such a record takes the insert that can skip a request read again.
      const row = { id: newId(), first: index, replacedBy: [], record, replace: key !== undefined && record.replace_duplicate };
      rows.push(row);
      if (key !== undefined) byKey.set(key, row);
    } else if (record.replace_duplicate) {
      earlier.replacedBy.push(index);
      earlier.record = record;
      earlier.replace = true;
    } else {
      ignored.push(index);
    }
  });
  const sortKey = (row: PlannedRow<R>) => dedupeKey(row.record) ?? '';
  rows.sort((a, b) => (sortKey(a) < sortKey(b) ? -1 : sortKey(a) > sortKey(b) ? 1 : 0));
  return { rows, ignored };
}

/**
 * What the upsert returned: every row it inserted or updated (not the rows a "do nothing" left alone),
 * and the rows it left because the request that wrote them last is the one asking again, with the answer
 * that request had (`repeat_of`).
 */
export type ReturnedRow = KeyFields & { id: string; repeat_of?: 'stored' | 'replaced' | null };

export interface Settled {
  outcomes: StoreOutcome[];
  /** The records that were written (stored or replaced), in the order given, with the id of their row. */
  written: { index: number; id: string; outcome: 'stored' | 'replaced' }[];
}

/** The outcome of every record, from the plan and what the database returned. */
export function settleStore<R extends KeyFields & { replace_duplicate: boolean }>(
  records: R[],
  plan: StorePlan<R>,
  returned: ReturnedRow[],
): Settled {
  const outcomes: StoreOutcome[] = new Array(records.length);
  const written: Settled['written'] = [];
  const rowById = new Map(plan.rows.map((row) => [row.id, row]));
  const rowByKey = new Map(plan.rows.filter((row) => dedupeKey(row.record) !== undefined).map((row) => [dedupeKey(row.record)!, row]));
  const rowIds = new Map<PlannedRow<R>, { id: string; inserted: boolean }>();
  const repeats = new Map<PlannedRow<R>, StoreOutcome>();
  for (const row of returned) {
    const inserted = rowById.get(row.id);
    const planned = inserted ?? rowByKey.get(dedupeKey(row)!);
    if (!planned) continue;
    if (row.repeat_of) repeats.set(planned, row.repeat_of);
    else rowIds.set(planned, { id: row.id, inserted: inserted !== undefined });
  }
  for (const row of plan.rows) {
    // The request read again answers as it did the first time, and writes nothing (no second QC event).
    const repeat = repeats.get(row);
    if (repeat) {
      outcomes[row.first] = repeat;
      continue;
    }
    const result = rowIds.get(row);
    const firstReplaces = records[row.first].replace_duplicate;
    // A record without a unique_id that the insert skipped was stored by this same request, read again
    // after a crash: it answers as the first reading did, and writes nothing (no second QC event).
    const first: StoreOutcome =
      result?.inserted || records[row.first].unique_id === null ? 'stored' : firstReplaces ? 'replaced' : 'ignored';
    outcomes[row.first] = first;
    if (!result) continue;
    if (first !== 'ignored') written.push({ index: row.first, id: result.id, outcome: first });
    for (const index of row.replacedBy) {
      outcomes[index] = 'replaced';
      written.push({ index, id: result.id, outcome: 'replaced' });
    }
  }
  for (const index of plan.ignored) outcomes[index] = 'ignored';
  written.sort((a, b) => a.index - b.index);
  return { outcomes, written };
}

/** A checked record, the workstream it is checked against, and the headers of the request that sent it. */
export interface RecordToStore<K extends PerformanceKind = PerformanceKind> {
  record: RecordInputOf[K];
  workstream: WorkstreamConfig;
  /** The request id of the API request it came in (for the events it causes); CSV rows have none. */
  headers?: Record<string, string>;
  /**
   * The RPC request that carries it (its correlation id, the same when the request is read again). Kept
   * on a record without a unique_id, which it then identifies; CSV rows have none.
   */
  rpcRequestId?: string;
}

export interface StoreResult {
  outcomes: StoreOutcome[];
  qcEvents: number;
}

/**
 * A batch of records made ready to store: the unique_id rule settled inside the batch (planStore), and the
 * reason QC should see each record should it be written, drawn now (a record that is not written drew for
 * nothing; each written one is still sampled with the workstream's rate).
 */
export interface PreparedStore<K extends PerformanceKind = PerformanceKind> {
  kind: K;
  items: RecordToStore<K>[];
  plan: StorePlan<RecordInputOf[K]>;
  qcReasons: (QcReason | undefined)[];
}

export function prepareStore<K extends PerformanceKind>(
  kind: K,
  items: RecordToStore<K>[],
  random: () => number = Math.random,
): PreparedStore<K> {
  const plan = planStore(items.map((item) => item.record));
  const qcReasons =
    kind === 'quality' ? items.map(({ record, workstream }) => qcReason(record as QualityRecordInput, workstream, random)) : [];
  return { kind, items, plan, qcReasons };
}

/**
 * Stores a prepared batch of checked records in one statement (writeBatch), applying the unique_id rule as
 * if the records came one after the other (planStore, settleStore): a repeat with replace_duplicate true
 * replaces the attributes, false keeps them. Every quality record stored or replaced that QC should see
 * gets its event in the outbox, in the same statement.
 */
export async function storeRecords<K extends PerformanceKind>(
  sql: Sql,
  { kind, items, plan, qcReasons }: PreparedStore<K>,
  uploadId: string | null,
): Promise<StoreResult> {
  const records = items.map((item) => item.record);
  const rowsThat = (replace: boolean) =>
    JSON.stringify(
      plan.rows
        .filter((row) => row.replace === replace)
        .map(({ id, record, first, replacedBy }) => {
          const { replace_duplicate: _ignored, ...columns } = record;
          const writer = items[replacedBy.at(-1) ?? first].rpcRequestId ?? null;
          const rpc_request_id = record.unique_id === null ? writer : null;
          const last_request_id = record.unique_id === null ? null : writer;
          // 'replaced' also tells the statement to write the row whatever request wrote it last: a repeat of
          // a request is recognised only when its record is the batch's only one of its key.
          const last_request_outcome = replacedBy.length ? 'replaced' : 'stored';
          return { ...columns, id, upload_id: uploadId, rpc_request_id, last_request_id, last_request_outcome };
        }),
    );
  const values = [rowsThat(true), rowsThat(false)];
  if (kind === 'quality')
    values.push(
      JSON.stringify(qcCandidates(items as RecordToStore<'quality'>[], plan as StorePlan<QualityRecordInput>, qcReasons, uploadId)),
    );
  const returned = await sql.query<ReturnedRow>(WRITE_BATCH[kind], values);
  const { outcomes, written } = settleStore(records, plan, returned);
  const qcEvents = kind === 'quality' ? written.filter(({ index }) => qcReasons[index]).length : 0;
  return { outcomes, qcEvents };
}

/** The QC events the batch may cause (QC_CANDIDATE_COLUMNS), in record order: one per record QC should see. */
function qcCandidates(
  items: RecordToStore<'quality'>[],
  plan: StorePlan<QualityRecordInput>,
  qcReasons: (QcReason | undefined)[],
  uploadId: string | null,
) {
  const rowOf = new Map<number, PlannedRow<QualityRecordInput>>();
  for (const row of plan.rows) for (const index of [row.first, ...row.replacedBy]) rowOf.set(index, row);
  const wanted = items.flatMap((item, index) => {
    const reason = qcReasons[index];
    const row = rowOf.get(index);
    // Not yet known: the row's id (new, or the one it replaces) and whether the record was stored or replaced.
    return reason && row
      ? [{ index, row, event: qcEvent(item.record, item.workstream, reason, { id: '', outcome: 'stored' }, uploadId, item.headers) }]
      : [];
  });
  const rows = outboxRows(
    ServiceName.Performance,
    Topic.QualityReviewForQc,
    wanted.map(({ event }) => event),
  );
  return rows.map((outboxRow, ord) => {
    const { index, row } = wanted[ord];
    const record = items[index].record;
    return {
      ...outboxRow,
      ord,
      row_id: row.id,
      workstream_id: record.workstream_id,
      use_case_id: record.use_case_id,
      task_definition_id: record.task_definition_id,
      unique_id: record.unique_id,
      is_first: row.first === index,
      first_replaces: items[row.first].record.replace_duplicate,
    };
  });
}

/** Why QC should see a stored or replaced record; undefined when it should not (below threshold, else sampled). */
export function qcReason(
  record: QualityRecordInput,
  workstream: WorkstreamConfig,
  random: () => number = Math.random,
): QcReason | undefined {
  return record.review_score < workstream.qc_score_threshold
    ? 'below_threshold'
    : random() < workstream.qc_sample_rate
      ? 'sampled'
      : undefined;
}

export type QcEventRow = { data: QualityReviewForQcEvent; key: string; headers?: Record<string, string> };

/**
 * The record as a QC event carries it: every field but workstream_id and replace_duplicate, in the order
 * the rules check them. Spelled out: an object rest copy of the checked record (a dictionary-mode object)
 * was 5 % of the performance service's CPU in a QC-heavy CSV import.
 */
function qcRecordData(record: QualityRecordInput): QualityReviewRecordData {
  return {
    use_case_id: record.use_case_id,
    task_definition_id: record.task_definition_id,
    dataset_id: record.dataset_id,
    asset_id: record.asset_id,
    task_id: record.task_id,
    unique_id: record.unique_id,
    task_url: record.task_url,
    task_completed_at: record.task_completed_at,
    worker_id: record.worker_id,
    review_completed_at: record.review_completed_at,
    review_duration: record.review_duration,
    reviewed_by: record.reviewed_by,
    review_score: record.review_score,
    review_explanation: record.review_explanation,
    errors: record.errors,
    review_type: record.review_type,
    task_review_count: record.task_review_count,
    subtask_review_count: record.subtask_review_count,
    review_metadata: record.review_metadata,
    review_measurements: record.review_measurements,
  };
}

/**
 * The record as a QC event carries it, as JSON text: what a CSV import keeps of a record QC will see, from
 * the row's check until its batch commits (a string is no object graph for the garbage collector to trace
 * and promote while the batch waits; docs/benchmarks.md, "Event batches in the outbox").
 */
export function qcRecordJson(record: QualityRecordInput): string {
  return JSON.stringify(qcRecordData(record));
}

/** Where a written record went, as its QC event says. */
export interface WrittenRecord {
  id: string;
  outcome: 'stored' | 'replaced';
}

/** A QC event's data before its record (the record is its last field). */
function qcEventHead(
  workstream: WorkstreamConfig,
  reason: QcReason,
  written: WrittenRecord,
  uploadId: string | null,
): Omit<QualityReviewForQcEvent, 'record'> {
  return {
    record_id: written.id,
    workstream_id: workstream.id,
    account_id: workstream.account_id,
    reason,
    qc_score_threshold: workstream.qc_score_threshold,
    qc_sample_rate: workstream.qc_sample_rate,
    outcome: written.outcome,
    upload_id: uploadId,
  };
}

/**
 * The data of a written record's QC event as JSON text, around its record's JSON text (qcRecordJson): the
 * same text as JSON.stringify of qcEvent's data.
 */
export function qcEventDataJson(
  recordJson: string,
  workstream: WorkstreamConfig,
  reason: QcReason,
  written: WrittenRecord,
  uploadId: string | null,
): string {
  const head = JSON.stringify(qcEventHead(workstream, reason, written, uploadId));
  return `${head.slice(0, -1)},"record":${recordJson}}`;
}

/** The QC event of one written record. */
export function qcEvent(
  record: QualityRecordInput,
  workstream: WorkstreamConfig,
  reason: QcReason,
  written: WrittenRecord,
  uploadId: string | null,
  headers?: Record<string, string>,
): QcEventRow {
  return {
    data: { ...qcEventHead(workstream, reason, written, uploadId), record: qcRecordData(record) },
    key: workstream.id,
    ...(headers ? { headers } : {}),
  };
}
