import { type EventEnvelope, type QualityReviewForQcEvent, Topic } from '@workline/contracts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { dbQuery, eventually, readWholeTopic } from '@workline/testing';
import type { KeyedRecords, PlacedWrite } from './keyed-records';

/** Quality records scoring under this go to QC: the default of the workstreams the scenarios create (docs/performance-api.md). */
const QC_SCORE_THRESHOLD = 0.5;

/**
 * The fields of a quality record the audits compare with the write the rules leave stored, and that a QC
 * event's `record` must carry as its write sent them.
 */
export const QUALITY_FIELDS = [
  'unique_id',
  'use_case_id',
  'task_definition_id',
  'task_id',
  'worker_id',
  'review_completed_at',
  'review_score',
  'review_explanation',
] as const;

/** What the QC topic holds for one workstream, against the writes of its quality records (empty lists: as it should be). */
export interface QcAudit {
  /** Writes that must have sent QC an event (they stored or replaced a record scoring under the threshold). */
  writesToQc: number;
  messages: number;
  /** Replaced events beyond one per replacing write: client retries that replaced their own first attempt's record. */
  retryEvents: number;
  /**
   * Writes whose events (distinct event ids) are not as the rules say: a storing write under the threshold
   * exactly one "stored"; a replacing one under it at least one "replaced" and at most one per attempt of its
   * client (a retry after a lost 202 replaces again); a first write's retries at most one "replaced" each; no
   * other write any. A request Kafka redelivered after a crash answers as it did and sends QC nothing more
   * (docs/decisions.md, "A request read again"), so it shows here.
   */
  countsOff: { key: string; effect: string; attempts: number; stored: number; replaced: number }[];
  /** Events no write explains (their record's explanation is no write's). */
  unexpected: string[];
  /** Events whose reason, record id, upload id or record values differ from their write and its stored record. */
  mismatched: string[];
}

/**
 * Audits the QC topic of a fault scenario's workstream (the fault suites' shared check, docs/operations.md
 * "Fault tests") against the writes the rules applied: once the performance outbox has published all it holds,
 * every write that stored or replaced a record scoring under the workstream's default threshold is on the
 * topic with its outcome and its own values (matched by its review explanation, unique per write), the id of
 * the record it wrote and its upload; nothing else is. `rows` are the stored records (id and the key fields).
 */
export async function auditQcEvents(
  workstreamId: string,
  records: KeyedRecords,
  rows: Record<string, unknown>[],
  keyOf: (row: Record<string, unknown>) => string,
  /** When the workstream's first write was made (epoch ms): the topic is read from then on, not from its beginning. */
  since: number,
): Promise<QcAudit> {
  await eventually(
    async () =>
      (
        await dbQuery<{ n: number }>(
          "select count(*)::int as n from messaging_outbox where source = 'performance' and published_at is null and " +
            'dead_lettered_at is null',
        )
      )[0].n === 0,
    { what: 'the performance outbox to be published', timeoutMs: 60_000, intervalMs: 500 },
  );
  const messages = (await readWholeTopic<EventEnvelope<QualityReviewForQcEvent>>(Topic.QualityReviewForQc, { since }))
    .filter((m) => m.value.data.workstream_id === workstreamId)
    .map((m) => m.value);
  return qcAgainstWrites(records, rows, keyOf, messages);
}

/** {@link auditQcEvents}'s check of the events read (pure: what the topic holds against the writes and the stored rows). */
export function qcAgainstWrites(
  records: KeyedRecords,
  rows: Record<string, unknown>[],
  keyOf: (row: Record<string, unknown>) => string,
  messages: EventEnvelope<QualityReviewForQcEvent>[],
): QcAudit {
  const recordIds = new Map(rows.map((row) => [keyOf(row), String(row.id)]));
  const writes = records.placed();
  const byExplanation = new Map(writes.map((w) => [String(w.values.review_explanation), w]));
  const eventIds = new Map<PlacedWrite, { stored: Set<string>; replaced: Set<string> }>();
  const unexpected: string[] = [];
  const mismatched: string[] = [];
  for (const value of messages) {
    const { data } = value;
    const write = byExplanation.get(String(data.record.review_explanation));
    if (!write) {
      unexpected.push(`${data.record_id} (${String(data.record.review_explanation)})`);
      continue;
    }
    const ids = eventIds.get(write) ?? { stored: new Set<string>(), replaced: new Set<string>() };
    eventIds.set(write, ids);
    if (data.outcome === 'stored' || data.outcome === 'replaced') ids[data.outcome].add(value.id);
    const record = data.record as unknown as Record<string, unknown>;
    const asSent = QUALITY_FIELDS.every((field) =>
      field === 'review_completed_at'
        ? new Date(String(record[field])).getTime() === new Date(String(write.values[field])).getTime()
        : (record[field] ?? null) === (write.values[field] ?? null),
    );
    if (
      !asSent ||
      data.reason !== 'below_threshold' ||
      data.record_id !== recordIds.get(write.key) ||
      (data.upload_id ?? null) !== write.uploadId ||
      (data.outcome !== 'stored' && data.outcome !== 'replaced')
    )
      mismatched.push(`${data.record_id} (${write.key}, ${data.outcome})`);
  }
  const below = (w: PlacedWrite) => Number(w.values.review_score) < QC_SCORE_THRESHOLD;
  const countsOff = writes.flatMap((w) => {
    const stored = eventIds.get(w)?.stored.size ?? 0;
    const replaced = eventIds.get(w)?.replaced.size ?? 0;
    const storedWanted = w.effect === 'stored' && below(w) ? 1 : 0;
    const [fewest, most] =
      !below(w) || w.effect === 'ignored' ? [0, 0] : w.effect === 'replaced' ? [1, w.attempts] : [0, w.replace ? w.attempts - 1 : 0];
    return stored === storedWanted && replaced >= fewest && replaced <= most
      ? []
      : [{ key: w.key, effect: w.effect, attempts: w.attempts, stored, replaced }];
  });
  return {
    writesToQc: writes.filter((w) => below(w) && w.effect !== 'ignored').length,
    messages: messages.length,
    retryEvents: writes.reduce((sum, w) => sum + Math.max(0, (eventIds.get(w)?.replaced.size ?? 0) - (w.effect === 'replaced' ? 1 : 0)), 0),
    countsOff,
    unexpected,
    mismatched,
  };
}

/** Fails unless the QC topic is as it should be: every list of the audit empty. */
export function expectQcAsStored(qc: QcAudit): void {
  expect(qc.countsOff).toEqual([]);
  expect(qc.unexpected).toEqual([]);
  expect(qc.mismatched).toEqual([]);
}

/**
 * A fault scenario's report: the faults with their recovery times, then what was checked, as Markdown tables
 * under `title`, written to `file` (docs/operations.md shows the latest ones) and returned.
 */
export function writeFaultReport(
  file: string,
  title: string,
  faultLog: [string, string][],
  summary: Record<string, string | number>,
): string {
  const table = [
    `### ${title} (${new Date().toISOString().slice(0, 10)})`,
    '',
    '| fault | recovery |',
    '| --- | --- |',
    ...faultLog.map(([name, took]) => `| ${name} | ${took} |`),
    '',
    '| checked | count |',
    '| --- | --- |',
    ...Object.entries(summary).map(([label, value]) => `| ${label} | ${value} |`),
    '',
  ].join('\n');
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, table);
  return table;
}

/**
 * A failed check's error with the scenario's faults and the clients' unexpected answers appended to its
 * message: npm test's digest of failures (tools/stack/jest-digest.ts) then shows them beside the check, where a
 * log that keeps only its tail has lost the scenario's console output.
 */
export function withScenarioContext(error: unknown, faultLog: [string, string][], problems: string[]): unknown {
  if (!(error instanceof Error)) return error;
  const faults = faultLog.map(([name, took]) => `  ${name}: ${took}`);
  const answers = problems.length ? [`unexpected client answers (${problems.length}):`, ...problems.slice(0, 10).map((p) => `  ${p}`)] : [];
  error.message = [error.message, '', 'faults injected:', ...faults, ...answers].join('\n');
  return error;
}
