import {
  type AppInstance,
  dbQuery,
  eventually,
  http,
  newQualityWorkstream,
  qualityReview,
  disturbsOnly,
  settledGroupMembers,
  startAppInstance,
  withRetries,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

/** The 202 messages of a stored and of a replaced record (docs/performance-api.md). */
const STORED = 'Record stored';
const REPLACED = 'Existing record replaced: a record with this unique_id already existed for this use case and task definition';

disturbsOnly(['performance'], 'adds a performance instance to its consumer group and SIGKILLs it under load', { calls: ['gateway'] });

/** Members of the performance group once it has settled; -1 while it rebalances. */
const performanceMembers = async () => (await settledGroupMembers('workline-performance'))?.length ?? -1;

describe('SIGKILL of a performance instance under load', () => {
  let extra: AppInstance | undefined;

  afterAll(async () => {
    await extra?.stop();
    // The stack's own instance takes every partition back before the next suites run.
    await eventually(async () => (await performanceMembers()) === 1, {
      what: 'the performance group back to one member',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
  });

  it('loses no submission answered 202', async () => {
    const { ws, key } = await newQualityWorkstream(`Crash ${randomUUID().slice(0, 6)}`);
    extra = startAppInstance('performance', { KAFKA_SESSION_TIMEOUT_MS: '6000' }, `performance-crash-${randomUUID().slice(0, 8)}`);
    const ops = await extra.opsUrl();
    await eventually(async () => (await fetch(`${ops}/health/ready`)).status === 200, {
      what: 'the extra performance instance to be ready',
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    await eventually(async () => (await performanceMembers()) === 2, {
      what: 'two members in the performance group',
      timeoutMs: 120_000,
      intervalMs: 500,
    });

    const accepted = new Map<string, string>();
    const failed: string[] = [];
    let stop = false;
    let sent = 0;
    const client = async (id: number) => {
      for (let n = 0; !stop; n++) {
        const uniqueId = `crash-${id}-${n}-${randomUUID().slice(0, 6)}`;
        sent++;
        // A client retries what got no answer (the gateway answers 503 when the service does not reply in time).
        const { result } = await withRetries(
          () =>
            http<{ message: string }>('POST', `/v1/workstreams/${ws}/task_reviewed`, {
              headers: { 'x-api-key': key },
              body: qualityReview(ws, uniqueId, `w-${id}`, 0.9, true),
              timeoutMs: 30_000,
            }),
          Date.now() + 120_000,
        );
        if (result?.status === 202) accepted.set(uniqueId, result.body.message);
        else failed.push(`${uniqueId}: ${result ? `${result.status} ${result.text}` : 'no answer'}`);
      }
    };
    const clients = Array.from({ length: 16 }, (_, i) => client(i));
    // Killed while the load runs: batches of the killed instance are in flight.
    await eventually(() => accepted.size >= 150, { what: '150 submissions accepted before the crash', timeoutMs: 120_000, intervalMs: 50 });
    extra.kill();
    await extra.exited;
    const atCrash = accepted.size;
    await eventually(() => accepted.size >= atCrash + 150, {
      what: '150 more submissions accepted after the crash',
      timeoutMs: 180_000,
      intervalMs: 100,
    });
    stop = true;
    await Promise.all(clients);

    expect(failed).toEqual([]);
    // A retried submission whose first try was committed answers "replaced": either answer is a 202 for a stored record.
    expect([...new Set(accepted.values())].every((m) => m === STORED || m === REPLACED)).toBe(true);
    const stored = await dbQuery<{ unique_id: string }>(
      'select unique_id from performance_quality_record where workstream_id = $1 and unique_id = any($2::text[])',
      [ws, [...accepted.keys()]],
    );
    expect(stored).toHaveLength(accepted.size);
    expect(sent).toBeGreaterThanOrEqual(accepted.size);
  });
});
