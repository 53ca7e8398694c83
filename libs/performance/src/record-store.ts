import { type QcReason, type QualityReviewForQcEvent, type QualityReviewRecordData, Topic } from '@workline/contracts';
import { enqueueEvents, type Tx } from '@workline/kafka';
import { randomUUID } from 'node:crypto';
import type { PerformanceKind, QualityRecordInput, RecordInputOf, WorkstreamConfig } from './record-rules';
import { PERFORMANCE_SOURCE } from './workstreams.service';

export type StoreOutcome = 'stored' | 'replaced' | 'ignored';

/** Columns both record tables have. */
const SHARED_COLUMNS: [string, string][] = ['use_case_id', 'task_definition_id', 'unique_id', 'dataset_id', 'asset_id', 'task_id', 'task_url'].map((name) => [name, 'text']);

/** Table and columns (with their PostgreSQL types) of each kind; the attribute columns are what a repeat replaces. */
const TABLES: Record<PerformanceKind, { table: string; columns: [string, string][] }> = {
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

const KEY_COLUMNS = ['workstream_id', 'use_case_id', 'task_definition_id', 'unique_id'];

/** The INSERT of one batch, the whole batch as one jsonb parameter (one round-trip, no parameter limit). */
function insertSql(kind: PerformanceKind, replace: boolean): string {
  const { table, columns } = TABLES[kind];
  const all: [string, string][] = [['id', 'uuid'], ['workstream_id', 'text'], ...columns, ['upload_id', 'text']];
  const names = all.map(([name]) => name).join(', ');
  const definition = all.map(([name, type]) => `${name} ${type}`).join(', ');
  const onConflict = replace
    ? `do update set ${[...columns.filter(([name]) => !KEY_COLUMNS.includes(name)).map(([name]) => name), 'upload_id']
        .map((name) => `${name} = excluded.${name}`)
        .join(', ')}, updated_at = now()`
    : 'do nothing';
  return `insert into ${table} (${names})
    select ${names} from jsonb_to_recordset($1::jsonb) as x(${definition})
    on conflict (${KEY_COLUMNS.join(', ')}) ${onConflict}
    returning id::text as id, use_case_id, task_definition_id, unique_id`;
}

const SQL: Record<PerformanceKind, Record<'replace' | 'keep', string>> = {
  quality: { replace: insertSql('quality', true), keep: insertSql('quality', false) },
  throughput: { replace: insertSql('throughput', true), keep: insertSql('throughput', false) },
};

interface ReturnedRow {
  id: string;
  use_case_id: string;
  task_definition_id: string;
  unique_id: string | null;
}

const dedupeKey = (r: { use_case_id: string; task_definition_id: string; unique_id: string | null }) =>
  r.unique_id === null ? undefined : `${r.use_case_id}\u0000${r.task_definition_id}\u0000${r.unique_id}`;

export interface StoreResult {
  outcomes: StoreOutcome[];
  qcEvents: number;
}

/**
 * Stores checked records in the caller's transaction, applying the unique_id rule as if the records
 * came one after the other: a repeat with replace_duplicate true replaces the attributes, false keeps
 * them. Quality records that QC should see are written to the outbox in the same transaction.
 */
export async function storeRecords<K extends PerformanceKind>(
  tx: Tx,
  kind: K,
  workstream: WorkstreamConfig,
  records: RecordInputOf[K][],
  uploadId: string | null,
  random: () => number = Math.random,
): Promise<StoreResult> {
  const outcomes: StoreOutcome[] = new Array(records.length);
  // Repeats inside the batch are settled here, because one INSERT may not touch a row twice.
  const pendingByKey = new Map<string, number>();
  const pending: { index: number; id: string; record: RecordInputOf[K] }[] = [];
  records.forEach((record, index) => {
    const key = dedupeKey(record);
    const earlier = key === undefined ? undefined : pendingByKey.get(key);
    if (earlier === undefined) {
      if (key !== undefined) pendingByKey.set(key, pending.length);
      pending.push({ index, id: randomUUID(), record });
    } else if (record.replace_duplicate) {
      // The first of the repeats takes the database's outcome; this one replaced it.
      outcomes[index] = 'replaced';
      pending[earlier] = { ...pending[earlier], record };
    } else {
      outcomes[index] = 'ignored';
    }
  });
  const byId = new Map(pending.map((p) => [p.id, p]));
  const byKey = new Map(pending.filter((p) => dedupeKey(p.record) !== undefined).map((p) => [dedupeKey(p.record)!, p]));
  const written: { record: RecordInputOf[K]; id: string; outcome: 'stored' | 'replaced' }[] = [];
  for (const replace of [true, false]) {
    const group = pending.filter((p) => p.record.replace_duplicate === replace);
    if (!group.length) continue;
    const rows = group.map(({ id, record }) => {
      const { replace_duplicate: _ignored, ...columns } = record;
      return { ...columns, id, upload_id: uploadId };
    });
    const returned = await tx.$queryRawUnsafe<ReturnedRow[]>(SQL[kind][replace ? 'replace' : 'keep'], JSON.stringify(rows));
    for (const row of returned) {
      const mine = byId.get(row.id);
      const entry = mine ?? byKey.get(dedupeKey(row)!);
      if (!entry) continue;
      const outcome = mine ? 'stored' : 'replaced';
      outcomes[entry.index] = outcome;
      written.push({ record: entry.record, id: row.id, outcome });
    }
    for (const p of group) outcomes[p.index] ??= 'ignored';
  }
  let qcEvents = 0;
  if (kind === 'quality') {
    const events = qcEventsFor(workstream, written as { record: QualityRecordInput; id: string; outcome: 'stored' | 'replaced' }[], uploadId, random);
    await enqueueEvents(tx, PERFORMANCE_SOURCE, Topic.QualityReviewForQc, events.map((data) => ({ data, key: workstream.id })));
    qcEvents = events.length;
  }
  return { outcomes, qcEvents };
}

function qcEventsFor(
  workstream: WorkstreamConfig,
  written: { record: QualityRecordInput; id: string; outcome: 'stored' | 'replaced' }[],
  uploadId: string | null,
  random: () => number,
): QualityReviewForQcEvent[] {
  const events: QualityReviewForQcEvent[] = [];
  for (const { record, id, outcome } of written) {
    const reason: QcReason | undefined =
      record.review_score < workstream.qc_score_threshold ? 'below_threshold' : random() < workstream.qc_sample_rate ? 'sampled' : undefined;
    if (!reason) continue;
    const { replace_duplicate: _r, workstream_id: _w, ...data } = record;
    events.push({
      record_id: id,
      workstream_id: workstream.id,
      account_id: workstream.account_id,
      reason,
      qc_score_threshold: workstream.qc_score_threshold,
      qc_sample_rate: workstream.qc_sample_rate,
      outcome,
      upload_id: uploadId,
      record: data satisfies QualityReviewRecordData,
    });
  }
  return events;
}
