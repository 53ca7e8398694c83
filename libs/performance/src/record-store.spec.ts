import 'reflect-metadata';
import type { QualityRecordInput, WorkstreamConfig } from './record-rules';
import {
  planStore,
  prepareStore,
  qcEvent,
  qcEventDataJson,
  qcRecordJson,
  type RecordToStore,
  type ReturnedRow,
  settleStore,
} from './record-store';

type Rec = {
  workstream_id: string;
  use_case_id: string;
  task_definition_id: string;
  unique_id: string | null;
  replace_duplicate: boolean;
  n: number;
};

const rec = (n: number, uniqueId: string | null, replace = true, workstream = 'ws-1'): Rec => ({
  workstream_id: workstream,
  use_case_id: 'uc',
  task_definition_id: 'td',
  unique_id: uniqueId,
  replace_duplicate: replace,
  n,
});

/** Ids r0, r1, ... in the order rows are planned. */
const ids = () => {
  let next = 0;
  return () => `r${next++}`;
};

/** What the database returns for a plan, given which keys already had a row (with the id it keeps). */
function databaseAnswer(records: Rec[], plan: ReturnType<typeof planStore<Rec>>, existing: Record<string, string>): ReturnedRow[] {
  const returned: ReturnedRow[] = [];
  for (const row of plan.rows) {
    const { workstream_id, use_case_id, task_definition_id, unique_id } = row.record;
    const key = unique_id ?? '';
    if (unique_id === null || !(key in existing)) returned.push({ id: row.id, workstream_id, use_case_id, task_definition_id, unique_id });
    else if (row.replace) returned.push({ id: existing[key], workstream_id, use_case_id, task_definition_id, unique_id });
  }
  return returned;
}

const settle = (records: Rec[], existing: Record<string, string> = {}) => {
  const plan = planStore(records, ids());
  return { plan, ...settleStore(records, plan, databaseAnswer(records, plan, existing)) };
};

describe('planStore and settleStore: the unique_id rule inside one batch, as if one after the other', () => {
  it(
    'a new key: the first is stored, later replacing ones replace, later keeping ones are ignored; the row ends ' +
      'with the last replacing record',
    () => {
      const records = [rec(0, 'u'), rec(1, 'u', false), rec(2, 'u', true), rec(3, 'u', false)];
      const { plan, outcomes, written } = settle(records);
      expect(outcomes).toEqual(['stored', 'ignored', 'replaced', 'ignored']);
      expect(plan.rows).toHaveLength(1);
      expect(plan.rows[0].record.n).toBe(2);
      expect(written).toEqual([
        { index: 0, id: 'r0', outcome: 'stored' },
        { index: 2, id: 'r0', outcome: 'replaced' },
      ]);
    },
  );

  it('an existing key, first record keeping and a later one replacing: the first is ignored, the later one replaced', () => {
    const records = [rec(0, 'u', false), rec(1, 'u', true)];
    const { outcomes, written, plan } = settle(records, { u: 'old' });
    expect(outcomes).toEqual(['ignored', 'replaced']);
    expect(plan.rows[0]).toMatchObject({ replace: true, record: { n: 1 } });
    expect(written).toEqual([{ index: 1, id: 'old', outcome: 'replaced' }]);
  });

  it('an existing key, every record keeping: all ignored, nothing written', () => {
    const records = [rec(0, 'u', false), rec(1, 'u', false)];
    expect(settle(records, { u: 'old' })).toMatchObject({ outcomes: ['ignored', 'ignored'], written: [] });
  });

  it('an existing key, first record replacing: replaced, with the existing row id', () => {
    expect(settle([rec(0, 'u')], { u: 'old' })).toMatchObject({
      outcomes: ['replaced'],
      written: [{ index: 0, id: 'old', outcome: 'replaced' }],
    });
  });

  it('records without unique_id are always new; keys of other workstreams are other keys', () => {
    const records = [rec(0, null), rec(1, null), rec(2, 'u', true, 'ws-1'), rec(3, 'u', false, 'ws-2')];
    const { outcomes, plan } = settle(records);
    expect(outcomes).toEqual(['stored', 'stored', 'stored', 'stored']);
    expect(plan.rows).toHaveLength(4);
  });

  it(
    'a record without unique_id never replaces, and when its request already stored it (the insert skipped it) ' +
      'answers stored and writes nothing',
    () => {
      const records = [rec(0, null, true), rec(1, null, false), rec(2, null, true)];
      const plan = planStore(records, ids());
      expect(plan.rows.map((row) => row.replace)).toEqual([false, false, false]);
      // The insert skipped r1: the same request, read again after a crash, had stored it before.
      const returned = databaseAnswer(records, plan, {}).filter((row) => row.id !== 'r1');
      const { outcomes, written } = settleStore(records, plan, returned);
      expect(outcomes).toEqual(['stored', 'stored', 'stored']);
      expect(written).toEqual([
        { index: 0, id: 'r0', outcome: 'stored' },
        { index: 2, id: 'r2', outcome: 'stored' },
      ]);
    },
  );

  it('a keyed record whose request wrote its row last (read again after a crash) answers as that request did and writes nothing', () => {
    const records = [rec(0, 'u', true), rec(1, 'v', false), rec(2, 'w', true)];
    const plan = planStore(records, ids());
    // u: written by this request before as a replace; v: stored by it before (a keeping record); w: new.
    const returned: ReturnedRow[] = [
      { id: 'old-u', workstream_id: 'ws-1', use_case_id: 'uc', task_definition_id: 'td', unique_id: 'u', repeat_of: 'replaced' },
      { id: 'old-v', workstream_id: 'ws-1', use_case_id: 'uc', task_definition_id: 'td', unique_id: 'v', repeat_of: 'stored' },
      { id: 'r2', workstream_id: 'ws-1', use_case_id: 'uc', task_definition_id: 'td', unique_id: 'w', repeat_of: null },
    ];
    const { outcomes, written } = settleStore(records, plan, returned);
    expect(outcomes).toEqual(['replaced', 'stored', 'stored']);
    expect(written).toEqual([{ index: 2, id: 'r2', outcome: 'stored' }]);
  });

  it('plans rows in key order, so concurrent batches lock rows in the same order', () => {
    const { plan } = settle([rec(0, 'c'), rec(1, 'a'), rec(2, 'b')]);
    expect(plan.rows.map((row) => row.record.unique_id)).toEqual(['a', 'b', 'c']);
  });

  it("orders rows as the key's unique index does: unique_id first, then workstream, use case and task definition", () => {
    const records = [
      { ...rec(0, 'b'), workstream_id: 'ws-1' },
      { ...rec(1, 'a'), workstream_id: 'ws-2' },
      { ...rec(2, 'a'), workstream_id: 'ws-1', use_case_id: 'uc-2' },
      { ...rec(3, 'a'), workstream_id: 'ws-1', use_case_id: 'uc-1' },
    ];
    const { plan } = settle(records);
    expect(plan.rows.map((row) => row.first)).toEqual([3, 2, 1, 0]);
  });

  it('matches a serial replay for every combination of replace flags, with and without an existing row', () => {
    // Reference: apply the records one at a time to a map.
    const serial = (records: Rec[], existing: Set<string>) => {
      const stored = new Map<string, number | 'old'>([...existing].map((key) => [key, 'old' as const]));
      const outcomes = records.map((r) => {
        if (!stored.has(r.unique_id!)) return (stored.set(r.unique_id!, r.n), 'stored');
        if (r.replace_duplicate) return (stored.set(r.unique_id!, r.n), 'replaced');
        return 'ignored';
      });
      return { outcomes, final: stored };
    };
    const flags = [true, false];
    for (const a of flags)
      for (const b of flags)
        for (const c of flags)
          for (const exists of flags) {
            const records = [rec(0, 'u', a), rec(1, 'u', b), rec(2, 'v', c), rec(3, 'u', !a)];
            const existing: Record<string, string> = exists ? { u: 'old' } : {};
            const { outcomes, plan } = settle(records, existing);
            const expected = serial(records, new Set(Object.keys(existing)));
            expect(outcomes).toEqual(expected.outcomes);
            const written = plan.rows.find((row) => row.record.unique_id === 'u')!;
            const final = expected.final.get('u');
            // A row the batch does not replace keeps what it held; otherwise it ends with the last writer's record.
            if (final === 'old') expect(written.replace).toBe(false);
            else expect(written.record.n).toBe(final);
          }
  });
});

describe('prepareStore: the reason QC should see each record', () => {
  const workstream: WorkstreamConfig = { id: 'ws-1', account_id: 'acc-1', use_cases: [], qc_score_threshold: 0.5, qc_sample_rate: 0.05 };
  const quality = (uniqueId: string, score: number, replace = true): RecordToStore<'quality'> => ({
    record: {
      workstream_id: 'ws-1',
      use_case_id: 'uc',
      task_definition_id: 'td',
      unique_id: uniqueId,
      replace_duplicate: replace,
      review_score: score,
    } as RecordToStore<'quality'>['record'],
    workstream,
  });
  const draws = (...values: number[]) => {
    const queue = [...values];
    return () => queue.shift() ?? 0.99;
  };

  it('no reason for a record above the threshold the draw does not sample', () => {
    const prepared = prepareStore('quality', [quality('a', 0.9), quality('b', 0.8)], draws(0.5, 0.06));
    expect(prepared.qcReasons).toEqual([undefined, undefined]);
  });

  it('below_threshold for a record under the threshold, sampled for one the draw picks', () => {
    expect(prepareStore('quality', [quality('a', 0.9), quality('b', 0.2)], draws(0.5)).qcReasons).toEqual([undefined, 'below_threshold']);
    expect(prepareStore('quality', [quality('a', 0.9), quality('b', 0.8)], draws(0.5, 0.01)).qcReasons).toEqual([undefined, 'sampled']);
  });

  it('throughput records cause no QC event', () => {
    const record = { ...quality('a', 0.9).record } as unknown as RecordToStore<'throughput'>['record'];
    expect(prepareStore('throughput', [{ record, workstream }]).qcReasons).toEqual([]);
  });
});

describe('qcEventDataJson: the QC event data as JSON text around the record kept as text', () => {
  const workstream: WorkstreamConfig = { id: 'ws-"1"', account_id: 'acc\n1', use_cases: [], qc_score_threshold: 0.5, qc_sample_rate: 0.05 };
  const record = {
    workstream_id: 'ws-"1"',
    use_case_id: 'uc',
    task_definition_id: 'td',
    dataset_id: null,
    asset_id: 'a\t1',
    task_id: 't',
    unique_id: 'u-é',
    task_url: null,
    task_completed_at: '2024-05-01T10:00:00.000Z',
    worker_id: 'w',
    review_completed_at: '2024-05-01T11:00:00.000Z',
    review_duration: 12.5,
    reviewed_by: 'r',
    review_score: 0.25,
    review_explanation: 'line\nbreak "quoted" \\ backslash',
    errors: { typo: 2 },
    review_type: null,
    task_review_count: 1,
    subtask_review_count: null,
    review_metadata: { nested: { a: [1, 2] } },
    review_measurements: null,
    replace_duplicate: true,
  } as unknown as QualityRecordInput;

  it.each([
    ['stored', 'upload-1'],
    ['replaced', null],
  ] as const)('is JSON.stringify of qcEvent’s data (%s, upload %s)', (outcome, uploadId) => {
    const written = { id: 'rec-1', outcome };
    const text = qcEventDataJson(qcRecordJson(record), workstream, 'below_threshold', written, uploadId);
    expect(text).toBe(JSON.stringify(qcEvent(record, workstream, 'below_threshold', written, uploadId).data));
    expect(JSON.parse(text)).toMatchObject({
      record_id: 'rec-1',
      outcome,
      upload_id: uploadId,
      record: { unique_id: 'u-é', errors: { typo: 2 } },
    });
  });
});
