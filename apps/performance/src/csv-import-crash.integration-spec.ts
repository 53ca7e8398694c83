import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { performanceUploadFolder, Topic } from '@workline/contracts';
import {
  adminCreate,
  type AppInstance,
  consumerGroupMembers,
  dbQuery,
  eventually,
  http,
  startAppInstance,
  testStack,
  disturbsOnly,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { Readable } from 'node:stream';

/**
 * A CSV import interrupted half-way (issue 15), and then completed from the last committed batch with
 * counters exactly those of one clean import, no record stored twice (rows without unique_id would be) and
 * one QC event per written record: SIGKILL of the importing instance (another takes the upload over), and
 * the import's database connections terminated under it (the same instance goes on; the file is not failed).
 */

// Twenty batches of 2,000 rows (UPLOAD_LIMITS.batchRows): the crash comes after the first commit, far from the end.
const ROWS = 40_000;
const HEADER = 'use_case_id,task_definition_id,unique_id,replace_duplicate,worker_id,review_completed_at,review_score,review_explanation\n';

interface Row {
  uniqueId: string;
  replace: string;
  score: number;
  rejected: boolean;
}

/** Every 7th row has no unique_id; the second half repeats the first half's ids, replacing every other one; every 50th row is refused. */
function row(i: number): Row {
  return {
    uniqueId: i % 7 === 0 ? '' : `u-${i % (ROWS / 2)}`,
    replace: i >= ROWS / 2 ? (i % 2 ? 'true' : 'false') : '',
    score: ((i * 7919) % 1000) / 1000,
    rejected: i % 50 === 49,
  };
}

function* csv(): Generator<string> {
  yield HEADER;
  let chunk = '';
  for (let i = 0; i < ROWS; i++) {
    const r = row(i);
    chunk += `uc-1,td-1,${r.uniqueId},${r.replace},w-${i % 100},2024-05-01T10:00:00Z,${r.rejected ? 2 : r.score},"row ${i}, quoted"\n`;
    if (chunk.length > 65_536) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}

/** What one clean import of the file gives, row after row (docs/csv-formats.md). */
function expected() {
  const counts = { stored: 0, replaced: 0, ignored: 0, rejected: 0, withoutId: 0, qcEvents: 0 };
  const seen = new Set<string>();
  for (let i = 0; i < ROWS; i++) {
    const r = row(i);
    let written = false;
    if (r.rejected) counts.rejected++;
    else if (!r.uniqueId) {
      counts.stored++;
      counts.withoutId++;
      written = true;
    } else if (!seen.has(r.uniqueId)) {
      seen.add(r.uniqueId);
      counts.stored++;
      written = true;
    } else if (r.replace !== 'false') {
      counts.replaced++;
      written = true;
    } else counts.ignored++;
    if (written && r.score < 0.5) counts.qcEvents++;
  }
  return counts;
}

/** A workstream sending low scores to QC, its API key, and an upload waiting for its quality CSV. */
async function newUpload(name: string) {
  const account = await adminCreate<{ id: string }>('/accounts', { name });
  const ws = await adminCreate<{ id: string }>('/workstreams', {
    account_id: account.id,
    name,
    use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
  });
  const { key } = await adminCreate<{ key: string }>(`/workstreams/${ws.id}/api-keys`, {});
  const headers = { 'x-api-key': key };
  const presigned = (
    await http<{ upload_id: string; upload_url: string }>('POST', `/v1/workstreams/${ws.id}/performance/generate-presigned-url`, {
      headers,
      body: { kind: 'quality' },
    })
  ).body;
  return { workstreamId: ws.id, headers, uploadId: presigned.upload_id, uploadUrl: presigned.upload_url };
}

const progress = async (uploadId: string) =>
  (
    await dbQuery<{ state: string; rows_processed: number; claimed_by: string }>(
      'select state, rows_processed, claimed_by from performance_upload where id = $1',
      [uploadId],
    )
  )[0];

/** The upload's view once it has ended, then the records and QC events it left: those of one clean import. */
async function expectImportedOnce(upload: { workstreamId: string; headers: Record<string, string>; uploadId: string }) {
  const { workstreamId, headers, uploadId } = upload;
  const view = await eventually(
    async () => {
      const body = (
        await http<Record<string, unknown>>('GET', `/v1/workstreams/${workstreamId}/performance/uploads/${uploadId}`, { headers })
      ).body;
      return ['completed', 'failed'].includes(body.state as string) ? body : undefined;
    },
    { what: 'the upload to end', timeoutMs: 180_000, intervalMs: 500 },
  );
  const want = expected();
  expect(view).toMatchObject({
    state: 'completed',
    failure: null,
    rows_processed: ROWS,
    rows_stored: want.stored,
    rows_replaced: want.replaced,
    rows_duplicates_ignored: want.ignored,
    rows_rejected: want.rejected,
    rows_accepted: want.stored + want.replaced + want.ignored,
  });
  const [stored] = await dbQuery<{ total: number; without_id: number; distinct_ids: number; other_upload: number }>(
    `select count(*)::int as total, count(*) filter (where unique_id is null)::int as without_id,
       count(distinct unique_id)::int as distinct_ids,
       count(*) filter (where upload_id is distinct from $2)::int as other_upload
     from performance_quality_record where workstream_id = $1`,
    [workstreamId, uploadId],
  );
  expect(stored).toEqual({ total: want.stored, without_id: want.withoutId, distinct_ids: want.stored - want.withoutId, other_upload: 0 });
  const [events] = await dbQuery<{ n: number; records: number }>(
    `select count(*)::int as n, count(distinct (payload->'data'->'record'->>'review_explanation'))::int as records
     from messaging_outbox_events where topic = $1 and payload->'data'->>'upload_id' = $2`,
    [Topic.QualityReviewForQc, uploadId],
  );
  expect(events).toEqual({ n: want.qcEvents, records: want.qcEvents });
}

describe('SIGKILL of the performance instance in the middle of a CSV import', () => {
  disturbsOnly(['performance'], "SIGSTOPs the stack's performance service while a second instance imports", { calls: ['gateway'] });
  const stack = testStack();
  const stackPerformance = stack.pids.performance;
  const instances: AppInstance[] = [];
  let paused = false;

  afterAll(async () => {
    if (paused) process.kill(stackPerformance, 'SIGCONT');
    await Promise.all(instances.map((instance) => instance.stop()));
    // The stack's own instance takes every partition back before the next suites run.
    await eventually(async () => (await consumerGroupMembers('workline-performance')).length === 1 || undefined, {
      what: 'the performance group back to one member',
      timeoutMs: 120_000,
      intervalMs: 500,
    });
  });

  it('another instance completes the upload: counters exact, nothing stored twice, one QC event per written record', async () => {
    const upload = await newUpload('Crash Co');
    const { uploadId } = upload;

    const doomed = startAppInstance('performance', { INSTANCE_ID: `doomed-${randomUUID().slice(0, 8)}`, KAFKA_SESSION_TIMEOUT_MS: '6000' });
    instances.push(doomed);
    const ops = await doomed.opsUrl();
    await eventually(async () => (await fetch(`${ops}/health/ready`)).status === 200 || undefined, {
      what: 'the doomed instance to be ready',
      timeoutMs: 120_000,
      intervalMs: 250,
    });
    // Only the doomed instance may take the upload: the stack's own is paused until the crash.
    process.kill(stackPerformance, 'SIGSTOP');
    paused = true;

    // What the gateway does on a PUT (the paused instance could not answer its RPCs): the file, then the queue.
    const blobKey = `${performanceUploadFolder(uploadId)}${randomUUID()}.csv`;
    const { size } = await new FsBlobStore(stack.appEnv.BLOB_DIR).put(blobKey, Readable.from(csv()), { contentType: 'text/csv' });
    await dbQuery(`update performance_upload set state = 'queued', blob_key = $2, bytes = $3, received_at = now() where id = $1`, [
      uploadId,
      blobKey,
      size,
    ]);

    const atCrash = await eventually(
      async () => {
        const now = await progress(uploadId);
        return now.rows_processed > 0 ? now : undefined;
      },
      { what: 'the doomed instance to commit a batch', timeoutMs: 60_000, intervalMs: 20 },
    );
    doomed.kill();
    await doomed.exited;
    const killed = await progress(uploadId);
    // The crash came in the middle: some rows committed, not all.
    expect(killed.state).toBe('processing');
    expect(killed.claimed_by).toMatch(/^doomed-/);
    expect(killed.rows_processed).toBeGreaterThanOrEqual(atCrash.rows_processed);
    expect(killed.rows_processed).toBeLessThan(ROWS);

    // The doomed instance's claim goes stale after two minutes without a heartbeat; the test ages it instead.
    await dbQuery(`update performance_upload set heartbeat_at = now() - interval '1 hour' where id = $1`, [uploadId]);
    process.kill(stackPerformance, 'SIGCONT');
    paused = false;

    await expectImportedOnce(upload);
  });
});

describe('the database connections of a CSV import terminated in the middle of it', () => {
  disturbsOnly(['performance'], "terminates the database connections of the stack's performance instance while it imports", {
    calls: ['gateway'],
  });

  it(
    'the same instance goes on after the last committed batch instead of failing the file: ' + 'counters exact, nothing stored twice',
    async () => {
      const upload = await newUpload('Connection loss Co');
      const { uploadId, uploadUrl } = upload;
      const put = await fetch(uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: [...csv()].join('') });
      expect(put.status).toBe(200);

      // Once a batch has committed, every connection inside one of the import's transactions is terminated, as
      // a PostgreSQL restart or a network fault would end it (SQLSTATE 57P01 under the import).
      const terminated = await eventually(
        async () => {
          const now = await progress(uploadId);
          if (now.rows_processed === 0) return undefined;
          const [{ n }] = await dbQuery<{ n: number }>(
            `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
            where pid <> pg_backend_pid() and xact_start is not null and query like '%performance_quality_stage%'`,
          );
          return n > 0 ? { connections: n, rowsProcessed: now.rows_processed } : undefined;
        },
        { what: 'an import transaction to terminate after the first commit', timeoutMs: 60_000, intervalMs: 10 },
      );
      expect(terminated.rowsProcessed).toBeLessThan(ROWS);

      await expectImportedOnce(upload);
    },
  );
});
