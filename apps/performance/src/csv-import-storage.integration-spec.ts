import { FsBlobStore } from '@workline/blob-store';
import { performanceUploadFolder } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import {
  adminCreate,
  callsOnly,
  eventually,
  getUpload,
  newBulkWorkstream,
  ok,
  presignUpload as presign,
  QUALITY_CSV_HEADER as QUALITY_HEADER,
  testStack,
  uploadCsv,
} from '@workline/testing';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

/**
 * What a CSV import leaves in the performance service: the stored rows with the JSON rules applied, the QC
 * events of the upload, and the upload's files on disk (deleted at its end, or by the sweep). No API returns
 * these, so the checks read performance's own tables, and age an upload past its expiry rather than wait for
 * it. The upload's contract from outside (statuses, counters, rejections, limits, reports) is in
 * e2e/performance/performance-bulk.
 */
describe('CSV imports as stored: rows, QC events, upload files (real gateway, Kafka and PostgreSQL)', () => {
  const stack = testStack();
  const prisma = new PrismaService(stack.databaseUrl);
  let accountId: string;
  const newWorkstream = (settings?: Record<string, number>) => newBulkWorkstream(accountId, settings);

  beforeAll(async () => {
    await prisma.$connect();
    accountId = (await adminCreate<{ id: string }>('/accounts', { name: 'Bulk Storage Co' })).id;
  });

  afterAll(() => prisma.$disconnect());

  describe('stored rows', () => {
    it('stores good rows, reports each bad row with its row number and reasons, applies unique_id, with the JSON rules', async () => {
      const ws = await newWorkstream({ qc_score_threshold: 0.5, qc_sample_rate: 0 });
      const csv = [
        QUALITY_HEADER,
        'uc-1,td-1,u1,ann@example.com,2024-05-01T10:00:00Z,0.9,QA,,1,0,night,3,"quoted, with ""comma"""', // 2
        'uc-1,td-1,u2,ann@example.com,2024-05-01T10:00:00Z,1.5,,,,,,,', // 3
        'uc-9,td-1,u3,ann@example.com,2024-05-01T10:00:00Z,0.5,,,,,,,', // 4
        'uc-1,td-1,u4,ann@example.com,yesterday,0.5,,,,,,,', // 5
        'uc-1,td-1,u5,ann@example.com', // 6
        'uc-1,td-1,u1,bob@example.com,2024-05-02T10:00:00+02:00,0.4,Spot Check,,,,,,', // 7
        'uc-1,td-1,u1,cy@example.com,2024-05-03T10:00:00Z,0.1,,false,,,,,', // 8
        'uc-1,td-2,,ann@example.com,2024-05-01T10:00:00Z,0.3,,,x,,,,', // 9
        '', // blank lines are skipped
        'uc-2,td-3,,dee@example.com,2024-05-01T11:00:00Z,0.7,Others,TRUE,0,2,,1.5,', // 11
        'uc-1,td-1,u6,ann@example.com,2024-05-01T10:00:00Z,0.5,QAX,maybe,,,,,', // 12
      ].join('\n');
      const upload = await uploadCsv(ws, 'quality', csv);
      expect(upload).toMatchObject({
        state: 'completed',
        failure: null,
        rows_processed: 10,
        rows_accepted: 4,
        rows_stored: 2,
        rows_replaced: 1,
        rows_duplicates_ignored: 1,
        rows_rejected: 6,
        rejections_truncated: false,
      });
      expect(upload.rejections).toEqual([
        { row: 3, errors: [{ field: 'review_score', message: 'review_score must be between 0 and 1' }] },
        { row: 4, errors: [{ field: 'use_case_id', message: `use_case_id "uc-9" is not a use case of workstream ${ws.id}` }] },
        {
          row: 5,
          errors: [
            { field: 'review_completed_at', message: 'review_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z' },
          ],
        },
        { row: 6, errors: [{ field: '(row)', message: 'the row has 4 fields, the header has 13' }] },
        { row: 9, errors: [{ field: 'errors.missing_box', message: 'errors.missing_box must be a non-negative integer' }] },
        {
          row: 12,
          errors: [
            { field: 'replace_duplicate', message: 'replace_duplicate must be a boolean' },
            { field: 'review_type', message: 'review_type must be one of: QA, QC, Spot Check, Others' },
          ],
        },
      ]);
      const rows = await prisma.$queryRaw<Record<string, unknown>[]>`
        select unique_id, worker_id, review_score, review_type, errors, review_metadata, review_measurements, review_explanation,
          review_completed_at, upload_id
        from performance_quality_record where workstream_id = ${ws.id} order by review_score`;
      expect(rows).toEqual([
        {
          unique_id: 'u1',
          worker_id: 'bob@example.com',
          review_score: 0.4,
          review_type: 'Spot Check',
          errors: {},
          review_metadata: null,
          review_measurements: null,
          review_explanation: null,
          review_completed_at: new Date('2024-05-02T08:00:00Z'),
          upload_id: upload.upload_id,
        },
        {
          unique_id: null,
          worker_id: 'dee@example.com',
          review_score: 0.7,
          review_type: 'Others',
          errors: { missing_box: 0, wrong_label: 2 },
          review_metadata: null,
          review_measurements: { attribute_1_count: 1.5 },
          review_explanation: null,
          review_completed_at: new Date('2024-05-01T11:00:00Z'),
          upload_id: upload.upload_id,
        },
      ]);
      // Below the threshold of 0.5: the replaced u1 (0.4) goes to QC, from the upload.
      const qc = await prisma.$queryRaw<{ unique_id: string; upload_id: string; reason: string }[]>`
        select payload->'data'->'record'->>'unique_id' as unique_id, payload->'data'->>'upload_id' as upload_id,
          payload->'data'->>'reason' as reason
        from messaging_outbox_events
        where topic = 'workline.performance.quality-review.for-qc.v1' and payload->'data'->>'workstream_id' = ${ws.id}`;
      expect(qc).toEqual([{ unique_id: 'u1', upload_id: upload.upload_id, reason: 'below_threshold' }]);
    });

    it('throughput rows: durations derived, workstream_id optional but checked', async () => {
      const ws = await newWorkstream();
      const csv = [
        'workstream_id,worker_id,task_id,task_started_at,task_completed_at,duration_seconds,task_count,subtask_count,' +
          'use_case_id,task_definition_id,metadata.queue',
        `${ws.id},w1,a,2024-05-01T10:00:00Z,2024-05-01T10:02:00Z,,2,5,uc-1,td-1,fast`,
        ',w1,b,,2024-05-01T10:10:00Z,30,,,,,',
        'someone-else,w1,c,,2024-05-01T10:10:00Z,30,,,,,',
        ',w1,d,,2024-05-01T10:10:00Z,,0,,,,',
      ].join('\r\n');
      const upload = await uploadCsv(ws, 'throughput', csv);
      expect(upload).toMatchObject({ state: 'completed', rows_accepted: 2, rows_rejected: 2 });
      expect(upload.rejections).toEqual([
        { row: 4, errors: [{ field: 'workstream_id', message: `workstream_id must equal the workstream in the path (${ws.id})` }] },
        { row: 5, errors: [{ field: 'task_count', message: 'task_count must be an integer of 1 or more' }] },
      ]);
      const rows = await prisma.$queryRaw<Record<string, unknown>[]>`
        select task_id, task_started_at, duration_seconds, task_count, subtask_count, use_case_id, task_metadata
        from performance_throughput_record where workstream_id = ${ws.id} order by task_id`;
      expect(rows).toEqual([
        {
          task_id: 'a',
          task_started_at: new Date('2024-05-01T10:00:00Z'),
          duration_seconds: 120,
          task_count: 2,
          subtask_count: 5,
          use_case_id: 'uc-1',
          task_metadata: { queue: 'fast' },
        },
        {
          task_id: 'b',
          task_started_at: new Date('2024-05-01T10:09:30Z'),
          duration_seconds: 30,
          task_count: 1,
          subtask_count: null,
          use_case_id: '',
          task_metadata: null,
        },
      ]);
    });
  });

  describe('upload files on disk', () => {
    const blobDir = stack.appEnv.BLOB_DIR;
    const folderOf = (uploadId: string) => join(blobDir, performanceUploadFolder(uploadId));
    const uploadRow = (uploadId: string) => prisma.performanceUpload.findUniqueOrThrow({ where: { id: uploadId } });

    it('deletes the files of a failed upload, as of a completed one', async () => {
      const ws = await newWorkstream();
      const failed = await uploadCsv(ws, 'quality', 'use_case_id,colour\nuc-1,red');
      expect(failed).toMatchObject({ state: 'failed', failure: expect.stringMatching(/^unknown CSV column\(s\): colour/) });
      const completed = await uploadCsv(ws, 'quality', `${QUALITY_HEADER}\nuc-1,td-1,,ann@example.com,2024-05-01T10:00:00Z,0.9,,,,,,,`);
      expect(completed).toMatchObject({ state: 'completed', rows_stored: 1 });
      for (const upload of [failed, completed]) {
        // The service deletes the folder just after recording the end: wait for it, briefly.
        await eventually(async () => !existsSync(folderOf(upload.upload_id)) || undefined, {
          what: `files of ${upload.state} upload ${upload.upload_id} deleted`,
          timeoutMs: 10_000,
        });
        expect((await uploadRow(upload.upload_id)).blobKey).toBeNull();
      }
    });

    it(
      'the sweep deletes the files of uploads whose URL expired unused (after an hour of grace), ' + 'and those a finished upload kept',
      async () => {
        const ws = await newWorkstream();
        const store = new FsBlobStore(blobDir);
        // What a gateway stopped between storing a file and telling the service leaves behind.
        const leaveFiles = async (uploadId: string) => {
          await store.put(`${performanceUploadFolder(uploadId)}left-behind.csv`, Readable.from([`${QUALITY_HEADER}\n`]), {
            contentType: 'text/csv',
          });
          writeFileSync(join(folderOf(uploadId), '.interrupted.partial'), 'half a file');
        };
        const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);
        const inGrace = (await ok(presign(ws), 201)).upload_id;
        await leaveFiles(inGrace);
        await prisma.performanceUpload.update({ where: { id: inGrace }, data: { expiresAt: minutesAgo(1) } });
        const pastGrace = (await ok(presign(ws), 201)).upload_id;
        await leaveFiles(pastGrace);
        await prisma.performanceUpload.update({ where: { id: pastGrace }, data: { expiresAt: minutesAgo(61) } });
        // A finished upload whose files were not deleted (its service stopped first): set up last, so the
        // sweep that removes them has also looked at both expired uploads.
        const done = await uploadCsv(ws, 'quality', `${QUALITY_HEADER}\n`);
        expect(done.state).toBe('completed');
        await eventually(
          async () => ((await uploadRow(done.upload_id)).blobKey === null && !existsSync(folderOf(done.upload_id))) || undefined,
          {
            what: "the completed upload's own files deleted",
            timeoutMs: 10_000,
          },
        );
        const blobKey = `${performanceUploadFolder(done.upload_id)}still-here.csv`;
        await store.put(blobKey, Readable.from(['x']), { contentType: 'text/csv' });
        await prisma.performanceUpload.update({ where: { id: done.upload_id }, data: { blobKey } });

        await eventually(
          async () => (!existsSync(folderOf(done.upload_id)) && (await uploadRow(done.upload_id)).blobKey === null) || undefined,
          {
            what: `the folder of finished upload ${done.upload_id} swept`,
            timeoutMs: 30_000,
          },
        );
        await eventually(async () => !existsSync(folderOf(pastGrace)) || undefined, {
          what: `the folder of expired upload ${pastGrace} swept`,
          timeoutMs: 10_000,
        });
        expect((await uploadRow(pastGrace)).state).toBe('expired');
        expect((await getUpload(ws, pastGrace)).data).toMatchObject({ state: 'expired', bytes: null, rows_processed: 0 });
        // Within the grace a PUT begun before the expiry may still be streaming: its folder is left alone.
        expect(readdirSync(folderOf(inGrace)).sort()).toEqual(['.interrupted.partial', 'left-behind.csv', 'left-behind.csv.meta.json']);
        expect((await uploadRow(inGrace)).state).toBe('awaiting_upload');
        expect((await getUpload(ws, inGrace)).data?.state).toBe('expired');
        expect((await getUpload(ws, done.upload_id)).data).toMatchObject({ state: 'completed', rows_processed: 0 });
      },
    );
  });
});
