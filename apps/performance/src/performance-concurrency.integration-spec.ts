import { dbQuery, http, newQualityWorkstream, qualityReview, callsOnly, whileDatabaseRefuses } from '@workline/testing';
import { randomUUID } from 'node:crypto';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

const MESSAGES = {
  stored: 'Record stored',
  replaced: 'Existing record replaced: a record with this unique_id already existed for this use case and task definition',
  ignored:
    'Duplicate ignored: a record with this unique_id already exists for this use case and task definition, and replace_duplicate is false',
} as const;
type Outcome = keyof typeof MESSAGES;
const outcomeOf = (message: string) => (Object.keys(MESSAGES) as Outcome[]).find((outcome) => MESSAGES[outcome] === message);

/** A small deterministic generator, so a failing order can be replayed. */
function seeded(seed: number) {
  let state = seed;
  return () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
}

describe('quality submissions under concurrency (group commit through the real gateway)', () => {
  it('200 concurrent submissions over 20 unique_ids end as some one-by-one order of them would, and every answer says so', async () => {
    const { ws, key } = await newQualityWorkstream(`Concurrency ${randomUUID().slice(0, 6)}`);
    const random = seeded(20261123);
    const uniqueIds = Array.from({ length: 20 }, (_, k) => `conc-${k}-${randomUUID().slice(0, 6)}`);
    // Five of the keys already hold a record: in the burst their first arrival is a repeat, not a new record.
    const existing = new Map(uniqueIds.slice(0, 5).map((uniqueId) => [uniqueId, `before-${uniqueId}`]));
    for (const [uniqueId, workerId] of existing) {
      expect(
        (
          await http('POST', `/v1/workstreams/${ws}/task_reviewed`, {
            headers: { 'x-api-key': key },
            body: qualityReview(ws, uniqueId, workerId, 0.9, true),
          })
        ).status,
      ).toBe(202);
    }
    // Ten submissions per key, each with its own worker_id (to recognise it) and a mix of replace_duplicate
    // true, false and absent (true); scores under and over the QC threshold of 0.5.
    const submissions = uniqueIds.flatMap((uniqueId, k) =>
      Array.from({ length: 10 }, (_, j) => ({
        uniqueId,
        workerId: `w-${k}-${j}`,
        score: ((k + j) % 10) / 10,
        replace: [false, true, undefined][(k + j) % 3],
      })),
    );
    for (let i = submissions.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [submissions[i], submissions[j]] = [submissions[j], submissions[i]];
    }
    const answers = await Promise.all(
      submissions.map((s) =>
        http<{ message: string }>('POST', `/v1/workstreams/${ws}/task_reviewed`, {
          headers: { 'x-api-key': key },
          body: qualityReview(ws, s.uniqueId, s.workerId, s.score, s.replace),
        }),
      ),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(200).fill(202));
    const answered = submissions.map((s, i) => ({ ...s, outcome: outcomeOf(answers[i].body.message) }));
    expect(answered.filter((a) => a.outcome === undefined)).toEqual([]);

    const rows = await dbQuery<{ unique_id: string; worker_id: string }>(
      'select unique_id, worker_id from performance_quality_record where workstream_id = $1',
      [ws],
    );
    expect(rows).toHaveLength(20);
    for (const uniqueId of uniqueIds) {
      const mine = answered.filter((a) => a.uniqueId === uniqueId);
      const final = rows.find((row) => row.unique_id === uniqueId)!.worker_id;
      // A one-by-one order that gives every answer: the first writer (the earlier record, or the one
      // request answered "stored"), then the ignored ones and the replacing ones, the final writer last.
      const stored = mine.filter((a) => a.outcome === 'stored');
      expect(stored).toHaveLength(existing.has(uniqueId) ? 0 : 1);
      for (const a of mine.filter((m) => m.outcome === 'replaced')) expect(a.replace).not.toBe(false);
      for (const a of mine.filter((m) => m.outcome === 'ignored')) expect(a.replace).toBe(false);
      const replacing = mine.filter((a) => a.outcome === 'replaced').map((a) => a.workerId);
      const firstWriter = existing.get(uniqueId) ?? stored[0].workerId;
      if (replacing.length) expect(replacing).toContain(final);
      else expect(final).toBe(firstWriter);
    }

    // Quality control saw exactly the records written (stored or replaced) under the threshold, each once.
    const events = await dbQuery<{ worker_id: string; outcome: string }>(
      `select payload->'data'->'record'->>'worker_id' as worker_id, payload->'data'->>'outcome' as outcome from messaging_outbox
       where topic = 'workline.performance.quality-review.for-qc.v1' and payload->'data'->>'workstream_id' = $1`,
      [ws],
    );
    const expected = answered
      .filter((a) => a.outcome !== 'ignored' && a.score < 0.5)
      .map((a) => ({ worker_id: a.workerId, outcome: a.outcome }));
    const order = (list: { worker_id: string }[]) => [...list].sort((a, b) => a.worker_id.localeCompare(b.worker_id));
    expect(order(events)).toEqual(order(expected));
  });

  it('a record the database refuses fails alone: the submissions that came with it are stored', async () => {
    const { ws, key } = await newQualityWorkstream(`Refused ${randomUUID().slice(0, 6)}`);
    const good = Array.from({ length: 30 }, (_, i) => `good-${i}-${randomUUID().slice(0, 6)}`);
    // This record passes the gateway and the field rules; the database refuses its worker_id (a constraint
    // the test adds), in the batch it shares with the others.
    const bad = `bad-${randomUUID().slice(0, 6)}`;
    const refusedWorker = `refused-${randomUUID()}`;
    const bodies = [
      ...good.slice(0, 15).map((u) => qualityReview(ws, u, 'w', 0.9, true)),
      qualityReview(ws, bad, refusedWorker, 0.9, true),
      ...good.slice(15).map((u) => qualityReview(ws, u, 'w', 0.9, true)),
    ];
    const answers = await whileDatabaseRefuses('performance_quality_record', `worker_id = '${refusedWorker}'`, () =>
      Promise.all(
        bodies.map((body) =>
          http<{ message: string }>('POST', `/v1/workstreams/${ws}/task_reviewed`, { headers: { 'x-api-key': key }, body }),
        ),
      ),
    );
    expect(answers.filter((a) => a.status === 202).map((a) => a.body.message)).toEqual(Array(30).fill(MESSAGES.stored));
    expect(answers[15].status).not.toBe(202);
    const stored = await dbQuery<{ unique_id: string }>('select unique_id from performance_quality_record where workstream_id = $1', [ws]);
    expect(stored.map((row) => row.unique_id).sort()).toEqual([...good].sort());
  });
});
