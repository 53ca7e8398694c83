import { PrismaService } from '@workline/db';
import { eventually, newPerformanceAccount, type PerformanceAccount, testStack, callsOnly, adminCreate } from '@workline/testing';
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

const STORED = 'Record stored';
const REPLACED = 'Existing record replaced: a record with this unique_id already existed for this use case and task definition';
const IGNORED =
  'Duplicate ignored: a record with this unique_id already exists for this use case and task definition, and replace_duplicate is false';
const QC_TOPIC = 'workline.performance.quality-review.for-qc.v1';

/**
 * What the performance service stores of a record sent through the gateway: every field, one row per unique_id,
 * and the QC event in the outbox with it. No API returns a stored record, so these checks read performance's own
 * tables; the black-box contract of the routes (statuses, messages, validation) is in e2e/performance.
 */
describe('performance records as stored: fields, unique_id, the QC outbox (real gateway, Kafka and PostgreSQL)', () => {
  const stack = testStack();
  const prisma = new PrismaService(stack.databaseUrl);
  let account: PerformanceAccount;
  let accountId: string;
  let ws: string;
  let otherWs: string;
  let otherKey: string;
  const review = (overrides?: Record<string, unknown>) => account.review(overrides);
  const completed = (overrides?: Record<string, unknown>) => account.completed(overrides);
  const post: PerformanceAccount['post'] = (...args) => account.post(...args);

  beforeAll(async () => {
    await prisma.$connect();
    account = await newPerformanceAccount('Perf Storage Co');
    ({ accountId, ws, otherWs, otherKey } = account);
  });

  afterAll(() => prisma.$disconnect());

  describe('POST task_reviewed', () => {
    it('202 "Record stored", and the row is in PostgreSQL with every field as sent (dates in UTC)', async () => {
      const body = review({
        unique_id: `full-${randomUUID()}`,
        dataset_id: 'ds-1',
        asset_id: 'clip-7',
        task_id: 'task-1',
        task_url: 'https://tool.example.com/tasks/1',
        task_completed_at: '2024-05-01T10:00:00.250+02:00',
        review_duration: 12.5,
        reviewed_by: 'rev@example.com',
        review_score: 0.75,
        review_explanation: 'two boxes missing',
        errors: { missing_box: 2, wrong_label: 0 },
        review_type: 'Spot Check',
        task_review_count: 1,
        subtask_review_count: 14,
        review_metadata: { shift: 'night' },
        review_measurements: { attribute_1_count: 3, attribute_1_label: 'car' },
      });
      const result = await post('task_reviewed', body);
      expect(result.status).toBe(202);
      expect(result.data).toEqual({ message: STORED });
      const [row] = await prisma.$queryRaw<Record<string, unknown>[]>`
        select use_case_id, task_definition_id, dataset_id, asset_id, task_id, task_url, task_completed_at, worker_id, review_completed_at,
          review_duration, reviewed_by, review_score, review_explanation, errors, review_type, task_review_count, subtask_review_count,
          review_metadata, review_measurements
        from performance_quality_record where unique_id = ${body.unique_id}`;
      expect(row).toEqual({
        use_case_id: 'uc-1',
        task_definition_id: 'td-1',
        dataset_id: 'ds-1',
        asset_id: 'clip-7',
        task_id: 'task-1',
        task_url: 'https://tool.example.com/tasks/1',
        task_completed_at: new Date('2024-05-01T08:00:00.250Z'),
        worker_id: 'ann@example.com',
        review_completed_at: new Date('2024-05-01T12:00:00Z'),
        review_duration: 12.5,
        reviewed_by: 'rev@example.com',
        review_score: 0.75,
        review_explanation: 'two boxes missing',
        errors: { missing_box: 2, wrong_label: 0 },
        review_type: 'Spot Check',
        task_review_count: 1,
        subtask_review_count: 14,
        review_metadata: { shift: 'night' },
        review_measurements: { attribute_1_count: 3, attribute_1_label: 'car' },
      });
    });

    it(
      'unique_id: a repeat replaces the record by default, is ignored with replace_duplicate false; scoped per use ' +
        'case and task definition',
      async () => {
        const uniqueId = `dup-${randomUUID()}`;
        const scoreOf = async (taskDefinitionId = 'td-1') =>
          await prisma.$queryRaw<{ review_score: number; reviewed_by: string | null }[]>`
          select review_score, reviewed_by from performance_quality_record
          where workstream_id = ${ws} and unique_id = ${uniqueId} and task_definition_id = ${taskDefinitionId}`;
        expect((await post('task_reviewed', review({ unique_id: uniqueId, review_score: 0.9, reviewed_by: 'first' }))).data).toEqual({
          message: STORED,
        });
        const replaced = await post('task_reviewed', review({ unique_id: uniqueId, review_score: 0.7 }));
        expect(replaced).toMatchObject({ status: 202, data: { message: REPLACED } });
        expect(await scoreOf()).toEqual([{ review_score: 0.7, reviewed_by: null }]);
        const explicit = await post('task_reviewed', review({ unique_id: uniqueId, review_score: 0.8, replace_duplicate: true }));
        expect(explicit.data).toEqual({ message: REPLACED });
        const ignored = await post('task_reviewed', review({ unique_id: uniqueId, review_score: 0.1, replace_duplicate: false }));
        expect(ignored).toMatchObject({ status: 202, data: { message: IGNORED } });
        expect(await scoreOf()).toEqual([{ review_score: 0.8, reviewed_by: null }]);
        // The same unique_id under another task definition, or in another workstream, is another record.
        expect((await post('task_reviewed', review({ unique_id: uniqueId, task_definition_id: 'td-2', review_score: 0.2 }))).data).toEqual({
          message: STORED,
        });
        expect(await scoreOf('td-2')).toEqual([{ review_score: 0.2, reviewed_by: null }]);
        expect((await post('task_reviewed', review({ workstream_id: otherWs, unique_id: uniqueId }), otherKey, otherWs)).data).toEqual({
          message: STORED,
        });
      },
    );

    it('concurrent repeats of one unique_id leave exactly one record', async () => {
      const uniqueId = `race-${randomUUID()}`;
      const results = await Promise.all(
        Array.from({ length: 12 }, (_, i) => post('task_reviewed', review({ unique_id: uniqueId, review_score: i / 20 }))),
      );
      expect(results.map((r) => r.status)).toEqual(Array(12).fill(202));
      expect(results.filter((r) => r.data?.message === STORED)).toHaveLength(1);
      const rows = await prisma.$queryRaw<
        { n: number }[]
      >`select count(*)::int as n from performance_quality_record where unique_id = ${uniqueId}`;
      expect(rows[0].n).toBe(1);
    });
  });

  describe('POST task_completed', () => {
    const stored = async (taskId: string) =>
      (
        await prisma.$queryRaw<Record<string, unknown>[]>`
          select use_case_id, task_definition_id, task_started_at, task_completed_at, duration_seconds, task_count, subtask_count,
            task_metadata
          from performance_throughput_record where workstream_id = ${ws} and task_id = ${taskId}`
      )[0];

    it('202 with the two required fields; task_count defaults to 1', async () => {
      const taskId = `t-${randomUUID()}`;
      const result = await post('task_completed', completed({ task_id: taskId }));
      expect(result).toMatchObject({ status: 202, data: { message: STORED } });
      expect(await stored(taskId)).toEqual({
        use_case_id: '',
        task_definition_id: '',
        task_started_at: null,
        task_completed_at: new Date('2024-05-01T12:00:00Z'),
        duration_seconds: null,
        task_count: 1,
        subtask_count: null,
        task_metadata: null,
      });
    });

    it('derives duration_seconds from the start, and the start from duration_seconds', async () => {
      const a = `t-${randomUUID()}`;
      await post(
        'task_completed',
        completed({
          task_id: a,
          task_started_at: '2024-05-01T11:58:30Z',
          task_count: 3,
          subtask_count: 12,
          use_case_id: 'uc-2',
          task_definition_id: 'td-3',
        }),
      );
      expect(await stored(a)).toMatchObject({
        duration_seconds: 90,
        task_started_at: new Date('2024-05-01T11:58:30Z'),
        task_count: 3,
        subtask_count: 12,
        use_case_id: 'uc-2',
        task_definition_id: 'td-3',
      });
      const b = `t-${randomUUID()}`;
      await post('task_completed', completed({ task_id: b, duration_seconds: 45.5, task_metadata: { queue: 'fast' } }));
      expect(await stored(b)).toMatchObject({
        duration_seconds: 45.5,
        task_started_at: new Date('2024-05-01T11:59:14.500Z'),
        task_metadata: { queue: 'fast' },
      });
      const c = `t-${randomUUID()}`;
      const all = await post(
        'task_completed',
        completed({ task_id: c, task_started_at: '2024-05-01T11:59:00Z', duration_seconds: 60.4, workstream_id: ws }),
      );
      expect(all.status).toBe(202);
      expect(await stored(c)).toMatchObject({ duration_seconds: 60.4 });
    });

    it('applies the unique_id rule like task_reviewed', async () => {
      const uniqueId = `tp-${randomUUID()}`;
      expect((await post('task_completed', completed({ unique_id: uniqueId, task_count: 2 }))).data).toEqual({ message: STORED });
      expect((await post('task_completed', completed({ unique_id: uniqueId, task_count: 5 }))).data).toEqual({ message: REPLACED });
      expect((await post('task_completed', completed({ unique_id: uniqueId, task_count: 9, replace_duplicate: false }))).data).toEqual({
        message: IGNORED,
      });
      const rows = await prisma.$queryRaw<
        { task_count: number }[]
      >`select task_count from performance_throughput_record where unique_id = ${uniqueId}`;
      expect(rows).toEqual([{ task_count: 5 }]);
    });
  });

  describe('quality control topic', () => {
    it(
      'publishes records under the threshold, and a random sample of the rest, ' + 'with the record, in the transaction of the record',
      async () => {
        const sampled = (
          await adminCreate<{ id: string }>('/workstreams', {
            account_id: accountId,
            name: 'Sample everything',
            use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
            qc_score_threshold: 0,
            qc_sample_rate: 1,
          })
        ).id;
        const sampledKey = (await adminCreate<{ key: string }>(`/workstreams/${sampled}/api-keys`, {})).key;
        const low = `low-${randomUUID()}`;
        const high = `high-${randomUUID()}`;
        const any = `any-${randomUUID()}`;
        expect((await post('task_reviewed', review({ unique_id: low, review_score: 0.59, errors: { e: 1 } }))).status).toBe(202);
        expect((await post('task_reviewed', review({ unique_id: high, review_score: 0.6 }))).status).toBe(202);
        expect(
          (await post('task_reviewed', review({ workstream_id: sampled, unique_id: any, review_score: 1 }), sampledKey, sampled)).status,
        ).toBe(202);
        // An ignored duplicate changes nothing, so it is not sent again.
        expect((await post('task_reviewed', review({ unique_id: low, review_score: 0.1, replace_duplicate: false }))).data).toEqual({
          message: IGNORED,
        });

        const outboxed = await prisma.$queryRaw<{ unique_id: string }[]>`
        select payload->'data'->'record'->>'unique_id' as unique_id from messaging_outbox
        where topic = ${QC_TOPIC} and payload->'data'->'record'->>'unique_id' in (${low}, ${high}, ${any})`;
        expect(outboxed.map((r) => r.unique_id).sort()).toEqual([any, low].sort());

        const kafka = new Kafka({ brokers: stack.kafkaBrokers, clientId: 'qc-test', logLevel: logLevel.NOTHING });
        const consumer = kafka.consumer({ groupId: `qc-test-${randomUUID()}` });
        const seen = new Map<string, Record<string, unknown>>();
        try {
          await consumer.connect();
          await consumer.subscribe({ topic: QC_TOPIC, fromBeginning: true });
          await consumer.run({
            eachMessage: async ({ message }) => {
              const envelope = JSON.parse(message.value!.toString()) as { type: string; data: { record: { unique_id: string } } };
              if ([low, any].includes(envelope.data.record.unique_id))
                seen.set(envelope.data.record.unique_id, { ...envelope, key: message.key?.toString() });
            },
          });
          await eventually(() => seen.size === 2, { what: 'both QC events on Kafka', timeoutMs: 60_000 });
        } finally {
          await consumer.disconnect();
        }
        expect(seen.get(low)).toMatchObject({
          type: QC_TOPIC,
          key: ws,
          data: {
            record_id: expect.any(String),
            workstream_id: ws,
            account_id: accountId,
            reason: 'below_threshold',
            qc_score_threshold: 0.6,
            qc_sample_rate: 0,
            outcome: 'stored',
            upload_id: null,
            record: expect.objectContaining({
              use_case_id: 'uc-1',
              task_definition_id: 'td-1',
              unique_id: low,
              worker_id: 'ann@example.com',
              review_score: 0.59,
              errors: { e: 1 },
            }),
          },
        });
        expect(seen.get(any)).toMatchObject({ key: sampled, data: { workstream_id: sampled, reason: 'sampled', qc_sample_rate: 1 } });
      },
    );
  });
});
