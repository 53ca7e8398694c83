import { Topic } from '@workline/contracts';
import { OUTCOME_MESSAGES } from '@workline/performance';
import { callsOnly, dbQuery, http, newQualityWorkstream, qualityReview, replayRpcRequest } from '@workline/testing';
import { randomUUID } from 'node:crypto';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

const STORED = { ok: true, data: { message: 'Record stored', outcome: 'stored' } };

/**
 * A record without a unique_id matches no dedupe rule: only its request identifies it. The same RPC request
 * read again (a crash between its start and its batch's offset commit, docs/decisions.md "RPC topics") must
 * not store it twice, nor send it to QC twice.
 */
describe('records without unique_id, their RPC request read again (real gateway, Kafka and PostgreSQL)', () => {
  it('a task_reviewed and a task_completed are each stored once, with one QC event, and both readings answer "Record stored"', async () => {
    const { ws, key } = await newQualityWorkstream(`Replayed records ${randomUUID().slice(0, 6)}`);
    const workerId = `replayed-${randomUUID()}`;
    const { unique_id: _none, ...review } = qualityReview(ws, '', workerId, 0.1, true);
    const sends = [
      { path: `/v1/workstreams/${ws}/task_reviewed`, body: review },
      { path: `/v1/workstreams/${ws}/task_completed`, body: { worker_id: workerId, task_completed_at: '2024-05-01T12:00:00Z' } },
    ];
    for (const { path, body } of sends) {
      const since = Date.now();
      const requestId = `replayed-record-${randomUUID()}`;
      const sent = await http<{ message: string }>('POST', path, { headers: { 'x-api-key': key, 'x-request-id': requestId }, body });
      expect([sent.status, sent.body.message]).toEqual([202, 'Record stored']);
      expect(await replayRpcRequest(Topic.PerformanceRpc, requestId, since)).toEqual([STORED, STORED]);
    }
    const stored = await dbQuery<{ kind: string; n: number; requests: number }>(
      `select 'quality' as kind, count(*)::int as n, count(distinct rpc_request_id)::int as requests
       from performance_quality_record where worker_id = $1
       union all
       select 'throughput', count(*)::int, count(distinct rpc_request_id)::int from performance_throughput_record where worker_id = $1`,
      [workerId],
    );
    expect(stored).toEqual([
      { kind: 'quality', n: 1, requests: 1 },
      { kind: 'throughput', n: 1, requests: 1 },
    ]);
    // Scored under the workstream's QC threshold: one event for QC, not one per reading.
    const qcEvents = await dbQuery<{ n: number }>(
      `select count(*)::int as n from messaging_outbox where topic = $1 and payload->'data'->'record'->>'worker_id' = $2`,
      [Topic.QualityReviewForQc, workerId],
    );
    expect(qcEvents).toEqual([{ n: 1 }]);
  });

  it(
    'a keyed task_reviewed read again answers as it did and sends QC nothing more; ' + 'a later request of the key still replaces',
    async () => {
      const { ws, key } = await newQualityWorkstream(`Replayed keyed records ${randomUUID().slice(0, 6)}`);
      const workerId = `replayed-keyed-${randomUUID()}`;
      const path = `/v1/workstreams/${ws}/task_reviewed`;
      const submit = async (body: unknown, requestId: string) => {
        const sent = await http<{ message: string }>('POST', path, { headers: { 'x-api-key': key, 'x-request-id': requestId }, body });
        expect(sent.status).toBe(202);
        return sent.body.message;
      };
      const qcOutcomes = async () =>
        (
          await dbQuery<{ outcome: string }>(
            `select payload->'data'->>'outcome' as outcome from messaging_outbox
           where topic = $1 and payload->'data'->'record'->>'worker_id' = $2 order by seq`,
            [Topic.QualityReviewForQc, workerId],
          )
        ).map((row) => row.outcome);
      const replayed = async (body: unknown, outcome: keyof typeof OUTCOME_MESSAGES) => {
        const since = Date.now();
        const requestId = `replayed-keyed-${randomUUID()}`;
        const message = OUTCOME_MESSAGES[outcome];
        expect(await submit(body, requestId)).toBe(message);
        const answer = { ok: true, data: { message, outcome } };
        expect(await replayRpcRequest(Topic.PerformanceRpc, requestId, since)).toEqual([answer, answer]);
      };

      // Stored, then read again: one "stored" event, the replay answers "Record stored".
      await replayed(qualityReview(ws, 'k1', workerId, 0.1, true), 'stored');
      expect(await qcOutcomes()).toEqual(['stored']);
      // Replaced by another request, then that request read again: one "replaced" event more, not two.
      await replayed({ ...qualityReview(ws, 'k1', workerId, 0.2, true), review_explanation: 'second' }, 'replaced');
      expect(await qcOutcomes()).toEqual(['stored', 'replaced']);
      // A keeping repeat, read again: ignored both times.
      await replayed(qualityReview(ws, 'k1', workerId, 0.3, false), 'ignored');
      // A new request with the same values still replaces (it is not a repeat of the one before).
      expect(await submit({ ...qualityReview(ws, 'k1', workerId, 0.2, true), review_explanation: 'second' }, `again-${randomUUID()}`)).toBe(
        OUTCOME_MESSAGES.replaced,
      );
      expect(await qcOutcomes()).toEqual(['stored', 'replaced', 'replaced']);
      const [row] = await dbQuery<{ review_score: number; review_explanation: string }>(
        'select review_score, review_explanation from performance_quality_record where workstream_id = $1 and unique_id = $2',
        [ws, 'k1'],
      );
      expect(row).toEqual({ review_score: 0.2, review_explanation: 'second' });
    },
  );
});
