import { DbPool } from '@workline/db';
import { KafkaProducer, OutboxRelay } from '@workline/messaging';
import { callsOnly, testStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { checkRecord, type WorkstreamConfig } from './record-rules';
import { RecordsRepository } from './records.repository';
import { prepareStore, type RecordToStore, storeRecords } from './record-store';
import { ServiceName } from '@workline/contracts';

// It calls no app: PostgreSQL only (the relay never starts): it runs beside files that disturb apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** How many round trips a batch of records costs, against the real PostgreSQL of the test stack. */
describe('RecordsRepository: a batch is one statement, QC events included', () => {
  const stack = testStack();
  const db = new DbPool(stack.databaseUrl, { size: 2 });
  const relay = new OutboxRelay(db, new KafkaProducer({ brokers: stack.kafkaBrokers, app: 'test-records', instanceId: 'jest' }), {
    source: ServiceName.Performance,
  });
  const records = new RecordsRepository(db, relay);
  const workstream: WorkstreamConfig = {
    id: `ws-${randomUUID()}`,
    account_id: `acc-${randomUUID()}`,
    use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
  };
  const review = (uniqueId: string | null, score: number, replace = true): RecordToStore<'quality'> => {
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
        replace_duplicate: replace,
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

  it('stores a record with or without its QC event in one statement, no BEGIN or COMMIT', async () => {
    let before = db.statementsSent;
    expect(await records.store('quality', review('above', 0.9))).toBe('stored');
    expect(db.statementsSent - before).toBe(1);
    expect(await stored('above')).toEqual([{ review_score: 0.9, events: 0 }]);

    before = db.statementsSent;
    expect(await records.store('quality', review('below', 0.2))).toBe('stored');
    expect(db.statementsSent - before).toBe(1);
    expect(await stored('below')).toEqual([{ review_score: 0.2, events: 1 }]);

    before = db.statementsSent;
    expect(await records.store('quality', review('above', 0.7))).toBe('replaced');
    expect(db.statementsSent - before).toBe(1);
    expect(await stored('above')).toEqual([{ review_score: 0.7, events: 0 }]);
  });

  it('writes a QC event for each record written, with the row it ended in and how, in record order; none for the ignored', async () => {
    const withRequest = (item: RecordToStore<'quality'>, rpcRequestId: string) => ({ ...item, rpcRequestId });
    const rowIds = async () =>
      new Map(
        (
          await db.pool.query<{ id: string; unique_id: string | null }>(
            'select id::text as id, unique_id from performance_quality_record where workstream_id = $1',
            [workstream.id],
          )
        ).rows.map((row) => [row.unique_id ?? 'none', row.id]),
      );
    const events = async () =>
      (
        await db.pool.query<{ record_id: string; outcome: string; score: number; unique_id: string | null }>(
          `select payload->'data'->>'record_id' as record_id, payload->'data'->>'outcome' as outcome,
             (payload->'data'->'record'->>'review_score')::float as score, payload->'data'->'record'->>'unique_id' as unique_id
           from messaging_outbox where source = $1 and payload->'data'->>'workstream_id' = $2 order by seq`,
          [ServiceName.Performance, workstream.id],
        )
      ).rows;
    const first = [
      review('k1', 0.2, false),
      review('k1', 0.3, true),
      review('k1', 0.4, false),
      review('k2', 0.9),
      withRequest(review(null, 0.1), 'request-1'),
    ];
    const before = await events();
    const firstResult = await storeRecords(db, prepareStore('quality', first), null);
    expect(firstResult).toEqual({ outcomes: ['stored', 'replaced', 'ignored', 'stored', 'stored'], qcEvents: 3 });
    let ids = await rowIds();
    expect((await events()).slice(before.length)).toEqual([
      { record_id: ids.get('k1'), outcome: 'stored', score: 0.2, unique_id: 'k1' },
      { record_id: ids.get('k1'), outcome: 'replaced', score: 0.3, unique_id: 'k1' },
      { record_id: ids.get('none'), outcome: 'stored', score: 0.1, unique_id: null },
    ]);

    const second = [
      review('k1', 0.2, false),
      review('k1', 0.25, true),
      review('k2', 0.1, true),
      review('k3', 0.1, false),
      // The same RPC request read again: answered as the first reading, nothing written.
      withRequest(review(null, 0.1), 'request-1'),
    ];
    const statements = db.statementsSent;
    const secondResult = await storeRecords(db, prepareStore('quality', second), null);
    expect(db.statementsSent - statements).toBe(1);
    expect(secondResult).toEqual({ outcomes: ['ignored', 'replaced', 'replaced', 'stored', 'stored'], qcEvents: 3 });
    ids = await rowIds();
    const withoutUniqueId = await db.pool.query('select 1 from performance_quality_record where workstream_id = $1 and unique_id is null', [
      workstream.id,
    ]);
    expect(withoutUniqueId.rowCount).toBe(1);
    expect((await events()).slice(before.length + 3)).toEqual([
      { record_id: ids.get('k1'), outcome: 'replaced', score: 0.25, unique_id: 'k1' },
      { record_id: ids.get('k2'), outcome: 'replaced', score: 0.1, unique_id: 'k2' },
      { record_id: ids.get('k3'), outcome: 'stored', score: 0.1, unique_id: 'k3' },
    ]);
    expect(await stored('k1')).toEqual([{ review_score: 0.25, events: 3 }]);
  });
});
