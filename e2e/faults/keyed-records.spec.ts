import type { EventEnvelope, QualityReviewForQcEvent } from '@workline/contracts';
import { qcAgainstWrites, QUALITY_FIELDS } from './fault-audit';
import { KeyedRecords, storedAgainstRules } from './keyed-records';

/**
 * The fault suites' audit of keyed records and QC events (pure logic): what the dedupe rules leave stored, and
 * which QC events the writes allow. The suites trust it to fail on a record or an event too many, so these
 * cases are the ones it must catch.
 */

const record = (uniqueId: string, score: number, explanation: string, extra: Record<string, unknown> = {}) => ({
  use_case_id: 'uc',
  task_definition_id: 'td',
  unique_id: uniqueId,
  task_id: `t-${uniqueId}`,
  worker_id: 'w@example.com',
  review_completed_at: '2026-11-01T12:00:00.000Z',
  review_score: score,
  review_explanation: explanation,
  ...extra,
});

/** Three records: u1 replaced (its replace sends no task_id), u2 written again and ignored, u3 stored by a retried call. */
function ledger(): KeyedRecords {
  const records = new KeyedRecords();
  records.record('u1', { values: record('u1', 0.1, 'u1 first'), replace: true, attempts: 1, uploadId: null, answer: 'Record stored' });
  const { task_id: _omitted, ...withoutTask } = record('u1', 0.3, 'u1 again');
  records.record('u1', { values: withoutTask, replace: true, attempts: 1, uploadId: null, answer: 'Existing record replaced: …' });
  records.record('u2', { values: record('u2', 0.2, 'u2 first'), replace: true, attempts: 1, uploadId: null, answer: 'Record stored' });
  records.record('u2', {
    values: record('u2', 0.4, 'u2 again'),
    replace: false,
    attempts: 1,
    uploadId: null,
    answer: 'Duplicate ignored: …',
  });
  records.record('u3', {
    values: record('u3', 0.0, 'u3 first'),
    replace: true,
    attempts: 2,
    uploadId: null,
    answer: 'Existing record replaced: …',
  });
  return records;
}

const storedRows = () => [
  { id: 'r1', ...record('u1', 0.3, 'u1 again'), task_id: null, upload_id: null },
  { id: 'r2', ...record('u2', 0.2, 'u2 first'), upload_id: null },
  { id: 'r3', ...record('u3', 0.0, 'u3 first'), upload_id: null },
];

const keyOf = (row: Record<string, unknown>) => String(row.unique_id);
const stored = (records: KeyedRecords, rows: Record<string, unknown>[]) =>
  storedAgainstRules(records, rows, { keyOf, fields: QUALITY_FIELDS, asStored: (row) => row });

let eventCount = 0;
const event = (
  recordId: string,
  outcome: 'stored' | 'replaced',
  values: Record<string, unknown>,
): EventEnvelope<QualityReviewForQcEvent> => ({
  id: `evt-${++eventCount}`,
  type: 'workline.performance.quality-review.for-qc.v1',
  occurred_at: '2026-11-01T12:00:00.000Z',
  data: {
    record_id: recordId,
    workstream_id: 'ws',
    account_id: 'acct',
    reason: 'below_threshold',
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
    outcome,
    upload_id: null,
    record: values as unknown as QualityReviewForQcEvent['record'],
  },
});

/**
 * The events the rules give the ledger: u1 stored then replaced, u2 stored (its ignored write sends none), u3
 * stored and its retry's replace.
 */
const rightEvents = () => [
  event('r1', 'stored', record('u1', 0.1, 'u1 first')),
  event('r1', 'replaced', { ...record('u1', 0.3, 'u1 again'), task_id: null }),
  event('r2', 'stored', record('u2', 0.2, 'u2 first')),
  event('r3', 'stored', record('u3', 0.0, 'u3 first')),
  event('r3', 'replaced', record('u3', 0.0, 'u3 first')),
];

describe('the keyed records audit', () => {
  it('expects the last replacing write of each key, a field it did not send empty, an ignored write changing nothing', () => {
    const expected = ledger().expectedAll();
    expect([...expected].map(([key, write]) => [key, write.values.review_explanation, write.effect])).toEqual([
      ['u1', 'u1 again', 'replaced'],
      ['u2', 'u2 first', 'stored'],
      ['u3', 'u3 first', 'stored'],
    ]);
    expect(stored(ledger(), storedRows())).toEqual({ storedNotOnce: [], unexplained: [], mismatched: [] });
  });

  it('finds a record stored with an ignored write, a replace that kept a field, a key stored twice and a row no write explains', () => {
    const rows = storedRows();
    rows[1] = { ...rows[1], review_score: 0.4, review_explanation: 'u2 again' };
    rows[0] = { ...rows[0], task_id: 't-u1' };
    const audit = stored(ledger(), [...rows, { ...rows[2] }, { id: 'r9', ...record('u9', 0.5, 'never sent'), upload_id: null }]);
    expect(audit.mismatched).toEqual([
      { key: 'u1', differing: ['task_id'] },
      { key: 'u2', differing: ['review_score', 'review_explanation'] },
    ]);
    expect(audit.storedNotOnce).toEqual(['u3']);
    expect(audit.unexplained).toEqual(['u9']);
  });

  it("holds each 202's message to the rule, a retried first write to what its retry met", () => {
    expect(ledger().answersAgainstRules()).toEqual([]);
    const records = ledger();
    records.record('u2', {
      values: record('u2', 0.6, 'u2 third'),
      replace: false,
      attempts: 1,
      uploadId: null,
      answer: 'Existing record replaced: …',
    });
    expect(records.answersAgainstRules()).toEqual([{ key: 'u2', effect: 'ignored', answer: 'Existing record replaced: …' }]);
  });
});

describe('the QC events audit', () => {
  it('accepts exactly the events the writes give', () => {
    const audit = qcAgainstWrites(ledger(), storedRows(), keyOf, rightEvents());
    expect(audit).toMatchObject({ countsOff: [], unexpected: [], mismatched: [], writesToQc: 4, retryEvents: 1 });
  });

  it('fails on one more replaced event of a write its client sent once (a request read again after a crash)', () => {
    const events = [...rightEvents(), event('r1', 'replaced', { ...record('u1', 0.3, 'u1 again'), task_id: null })];
    expect(qcAgainstWrites(ledger(), storedRows(), keyOf, events).countsOff).toEqual([
      { key: 'u1', effect: 'replaced', attempts: 1, stored: 0, replaced: 2 },
    ]);
  });

  it('fails on a missing stored event, an event of an ignored write, other values and an event no write explains', () => {
    const [u1Stored, u1Replaced, , u3Stored, u3Replaced] = rightEvents();
    const events = [
      u1Stored,
      { ...u1Replaced, data: { ...u1Replaced.data, record: { ...u1Replaced.data.record, worker_id: 'someone else' } } },
      event('r2', 'replaced', record('u2', 0.4, 'u2 again')),
      u3Stored,
      u3Replaced,
      event('r9', 'stored', record('u9', 0.1, 'never sent')),
    ];
    const audit = qcAgainstWrites(ledger(), storedRows(), keyOf, events);
    expect(audit.countsOff).toEqual([
      { key: 'u2', effect: 'stored', attempts: 1, stored: 0, replaced: 0 },
      { key: 'u2', effect: 'ignored', attempts: 1, stored: 0, replaced: 1 },
    ]);
    expect(audit.mismatched).toEqual(['r1 (u1, replaced)']);
    expect(audit.unexpected).toEqual(['r9 (never sent)']);
  });

  it('counts an event once however often the outbox published it (one event id)', () => {
    const events = rightEvents();
    expect(qcAgainstWrites(ledger(), storedRows(), keyOf, [...events, events[0], events[2]]).countsOff).toEqual([]);
  });
});
