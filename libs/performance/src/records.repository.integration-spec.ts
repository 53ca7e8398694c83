import { DbPool } from '@workline/db';
import { KafkaProducer, OutboxRelay } from '@workline/messaging';
import { callsOnly, testStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { checkRecord, type WorkstreamConfig } from './record-rules';
import { PERFORMANCE_SOURCE } from './workstreams.repository';
import { RecordsRepository } from './records.repository';

// It calls no app: PostgreSQL only (the relay never starts): it runs beside files that disturb apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** How many round trips a batch of records costs, against the real PostgreSQL of the test stack. */
describe('RecordsRepository: a batch that needs no transaction is one statement', () => {
  const stack = testStack();
  const db = new DbPool(stack.databaseUrl, { size: 2 });
  const relay = new OutboxRelay(db, new KafkaProducer({ brokers: stack.kafkaBrokers, app: 'test-records', instanceId: 'jest' }), {
    source: PERFORMANCE_SOURCE,
  });
  const records = new RecordsRepository(db, relay);
  const workstream: WorkstreamConfig = {
    id: `ws-${randomUUID()}`,
    account_id: `acc-${randomUUID()}`,
    use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
  };
  const review = (uniqueId: string, score: number) => {
    const checked = checkRecord(
      'quality',
      {
        workstream_id: workstream.id,
        use_case_id: 'uc',
        task_definition_id: 'td',
        worker_id: 'ann@example.com',
        review_completed_at: '2026-11-27T01:00:00Z',
        review_score: score,
        review_type: 'QA',
        unique_id: uniqueId,
      },
      workstream,
    );
    if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
    return { record: checked.record, workstream };
  };
  const stored = async (uniqueId: string) =>
    (
      await db.pool.query<{ review_score: number; events: number }>(
        `select r.review_score, (select count(*)::int from messaging_outbox o where o.payload->'data'->>'record_id' = r.id::text) as events
           from performance_quality_record r where r.workstream_id = $1 and r.unique_id = $2`,
        [workstream.id, uniqueId],
      )
    ).rows;

  afterAll(() => db.end());

  it('stores a record QC need not see with the upsert alone, and one it must see with its outbox row in a transaction', async () => {
    let before = db.statementsSent;
    expect(await records.store('quality', review('above', 0.9))).toBe('stored');
    expect(db.statementsSent - before).toBe(1);
    expect(await stored('above')).toEqual([{ review_score: 0.9, events: 0 }]);

    before = db.statementsSent;
    expect(await records.store('quality', review('below', 0.2))).toBe('stored');
    // begin, the upsert, the outbox insert, commit
    expect(db.statementsSent - before).toBe(4);
    expect(await stored('below')).toEqual([{ review_score: 0.2, events: 1 }]);

    // A replace is the same single upsert.
    before = db.statementsSent;
    expect(await records.store('quality', review('above', 0.7))).toBe('replaced');
    expect(db.statementsSent - before).toBe(1);
    expect(await stored('above')).toEqual([{ review_score: 0.7, events: 0 }]);
  });
});
