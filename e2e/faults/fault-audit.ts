import { type EventEnvelope, type QualityReviewForQcEvent, Topic } from '@workline/contracts';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { dbQuery, eventually, readWholeTopic } from '@workline/testing';

/**
 * A stored quality record as selected from performance_quality_record: at least id, unique_id, worker_id,
 * review_score, review_explanation and review_completed_at (the values its QC event must carry).
 */
export type StoredQualityRecord = Record<string, unknown>;

/** Quality records scoring under this go to QC: the default of the workstreams the scenarios create (docs/performance-api.md). */
const QC_SCORE_THRESHOLD = 0.5;

/** What the QC topic holds for one workstream, against its stored quality records (empty lists: as it should be). */
export interface QcAudit {
  /** Stored records under the threshold, by record id: each must have exactly one "stored" event. */
  shouldQc: string[];
  messages: number;
  /** Records under the threshold without exactly one "stored" event id. */
  storedNotOnce: { id: string; unique_id: unknown; stored: number }[];
  /** Record ids with events that should have none (at or over the threshold, or not stored). */
  unexpected: string[];
  /** Record ids of events whose reason, outcome or record values differ from the stored record. */
  mismatched: string[];
  /**
   * Records with more than one event although their client never retried: a request Kafka redelivered after
   * a crash, applied again as a replace. None since a keyed record remembers its last request
   * (docs/decisions.md, "A request read again"); the suites expect it empty.
   */
  replacedWithoutRetry: string[];
}

/**
 * Audits the QC topic of a fault scenario's workstream (the fault suites' shared check, docs/operations.md
 * "Fault tests"): once the performance outbox has published all it holds, every stored record scoring under
 * the workstream's default threshold must be on the topic as "stored" exactly once (one event id), with the stored values; more
 * events of a record are "replaced" ones (a client retry, or a redelivered request); no other record has any.
 */
export async function auditQcEvents(workstreamId: string, records: StoredQualityRecord[], retriedUniqueIds: Set<string>): Promise<QcAudit> {
  await eventually(
    async () =>
      (
        await dbQuery<{ n: number }>(
          "select count(*)::int as n from messaging_outbox where source = 'performance' and published_at is null and dead_lettered_at is null",
        )
      )[0].n === 0,
    { what: 'the performance outbox to be published', timeoutMs: 60_000, intervalMs: 500 },
  );
  const messages = (await readWholeTopic<EventEnvelope<QualityReviewForQcEvent>>(Topic.QualityReviewForQc)).filter(
    (m) => m.value.data.workstream_id === workstreamId,
  );
  const eventIds = new Map<string, Set<string>>();
  const storedEventIds = new Map<string, Set<string>>();
  for (const { value } of messages) {
    eventIds.set(value.data.record_id, (eventIds.get(value.data.record_id) ?? new Set()).add(value.id));
    if (value.data.outcome === 'stored')
      storedEventIds.set(value.data.record_id, (storedEventIds.get(value.data.record_id) ?? new Set()).add(value.id));
  }
  const byId = new Map(records.map((row) => [String(row.id), row]));
  const shouldQc = records.filter((row) => Number(row.review_score) < QC_SCORE_THRESHOLD).map((row) => String(row.id));
  const shouldQcSet = new Set(shouldQc);
  const mismatched = messages.filter(({ value: { data } }) => {
    const row = byId.get(data.record_id);
    return (
      !row ||
      data.reason !== 'below_threshold' ||
      (data.outcome !== 'stored' && data.outcome !== 'replaced') ||
      data.record.unique_id !== row.unique_id ||
      data.record.worker_id !== row.worker_id ||
      data.record.review_score !== row.review_score ||
      data.record.review_explanation !== row.review_explanation ||
      new Date(data.record.review_completed_at).getTime() !== (row.review_completed_at as Date).getTime()
    );
  });
  return {
    shouldQc,
    messages: messages.length,
    storedNotOnce: shouldQc
      .filter((id) => storedEventIds.get(id)?.size !== 1)
      .map((id) => ({ id, unique_id: byId.get(id)?.unique_id, stored: storedEventIds.get(id)?.size ?? 0 })),
    unexpected: [...eventIds.keys()].filter((id) => !shouldQcSet.has(id)),
    mismatched: mismatched.map((m) => m.value.data.record_id),
    replacedWithoutRetry: shouldQc.filter(
      (id) => (eventIds.get(id)?.size ?? 0) > 1 && !retriedUniqueIds.has(String(byId.get(id)?.unique_id)),
    ),
  };
}

/** Fails unless the QC topic is as it should be: every list of the audit empty. */
export function expectQcAsStored(qc: QcAudit): void {
  expect(qc.storedNotOnce).toEqual([]);
  expect(qc.unexpected).toEqual([]);
  expect(qc.mismatched).toEqual([]);
  // A request Kafka handed out again after a crash answers as it did and sends QC nothing more.
  expect(qc.replacedWithoutRetry).toEqual([]);
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
