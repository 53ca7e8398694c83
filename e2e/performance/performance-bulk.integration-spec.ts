import type { QueryOf, Schemas } from '@workline/client';
import { loadEnv, BaseEnv } from '@workline/config';
import { sha256, signPath } from '@workline/secrets';
import {
  apiClient,
  type AppInstance,
  fieldErrors,
  getUpload,
  http,
  newAccountId,
  newBulkWorkstream,
  ok,
  postRecord,
  presignUpload,
  putUploadFile,
  QUALITY_CSV_HEADER as QUALITY_HEADER,
  reportedRecords,
  startGateway,
  testStack,
  uploadCsv,
  uploadFinished,
  withStatus,
} from '@workline/testing';
import { request as httpRequest } from 'node:http';

type Upload = Schemas['PerformanceUploadAnswer'];
type QualityGroup = Schemas['QualityReportGroupAnswer'];
type ReportQuery = QueryOf<'getV1WorkstreamsWorkstreamIdReportsQuality'>;

/** percentile_cont as PostgreSQL computes it: linear interpolation between the closest ranks. */
function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  const position = p * (sorted.length - 1);
  const lower = Math.floor(position);
  const upper = Math.min(lower + 1, sorted.length - 1);
  return sorted[lower] + (position - lower) * (sorted[upper] - sorted[lower]);
}

const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;

/**
 * A PUT that announces `declaredBytes` but sends only the first KiB, then waits for the answer: a server
 * that decides before reading the body answers; one that reads first never does (reported as status 0).
 */
function putHeadersOnly(url: string, declaredBytes: number, waitMs = 15_000): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      url,
      { method: 'PUT', headers: { 'content-type': 'text/csv', 'content-length': String(declaredBytes) } },
      (response) => {
        let body = '';
        response.on('data', (chunk: Buffer) => (body += chunk.toString()));
        response.on('end', () => {
          clearTimeout(timer);
          request.destroy();
          resolve({ status: response.statusCode ?? 0, body });
        });
      },
    );
    const timer = setTimeout(() => {
      request.destroy();
      resolve({ status: 0, body: `no answer within ${waitMs} ms while the body was still owed` });
    }, waitMs);
    request.on('error', reject);
    request.write(Buffer.alloc(1024, 'a'));
  });
}

/**
 * The bulk channel's contract from outside: presigned URLs, PUT, the upload's state, counters and rejections, limits,
 * and the reports. What an import stores (rows, QC events) and does with its files on disk is checked beside the
 * service, in apps/performance/src/csv-import-storage.
 */
describe('workstream performance API: bulk CSV through presigned URLs, and reports (real stack)', () => {
  const stack = testStack();
  let accountId: string;
  const newWorkstream = (settings?: Record<string, number>) => newBulkWorkstream(accountId, settings);
  const presign = presignUpload;
  const put = putUploadFile;
  const finished = uploadFinished;
  const reportParams = (ws: { id: string }, query: ReportQuery) => ({ path: { workstream_id: ws.id }, query });
  const qualityReport = (ws: { id: string; key: string }, query: ReportQuery = {}) =>
    withStatus(apiClient({ apiKey: ws.key }).GET('/v1/workstreams/{workstream_id}/reports/quality', { params: reportParams(ws, query) }));
  const throughputReport = (ws: { id: string; key: string }, query: ReportQuery = {}) =>
    withStatus(
      apiClient({ apiKey: ws.key }).GET('/v1/workstreams/{workstream_id}/reports/throughput', { params: reportParams(ws, query) }),
    );
  /** A report as CSV (format=csv): the answer, its body as text. */
  const csvReport = (ws: { id: string; key: string }, kind: 'quality' | 'throughput', query: ReportQuery = {}) =>
    apiClient({ apiKey: ws.key }).GET(`/v1/workstreams/{workstream_id}/reports/${kind}`, {
      params: reportParams(ws, { ...query, format: 'csv' }),
      parseAs: 'text',
    });
  /** A task_reviewed record of workstream `ws` for use case uc-1 / td-1 (or the overrides). */
  const reviewOf = (ws: { id: string }, overrides: Record<string, unknown>) => ({
    workstream_id: ws.id,
    use_case_id: 'uc-1',
    task_definition_id: 'td-1',
    review_completed_at: '2024-06-01T12:00:00Z',
    review_score: 0.5,
    ...overrides,
  });

  beforeAll(async () => {
    accountId = await newAccountId('Bulk Co');
  });

  describe('presigned URLs', () => {
    it('201 with an absolute, signed PUT URL on the gateway; the upload waits for its file', async () => {
      const ws = await newWorkstream();
      const result = await presign(ws, { kind: 'quality', file_name: 'may.csv' });
      expect(result.status).toBe(201);
      const presigned = result.data!;
      expect(presigned).toEqual({
        upload_url: expect.stringMatching(
          new RegExp(`^${stack.gatewayUrl}/uploads/performance/upl_[0-9a-f]{32}\\?expires=\\d+&signature=[0-9a-f]{64}$`),
        ),
        upload_id: expect.stringMatching(/^upl_/),
        expires_at: expect.any(String),
        method: 'PUT',
        content_type: 'text/csv',
      });
      const lifetime = Date.parse(presigned.expires_at) - Date.now();
      expect(lifetime).toBeGreaterThan(3500_000);
      expect(lifetime).toBeLessThanOrEqual(3600_000);
      // The URL expires when expires_at says, to the second (not up to a second before it).
      const expires = Number(new URL(presigned.upload_url).searchParams.get('expires'));
      expect(expires * 1000).toBe(Date.parse(presigned.expires_at));
      const upload = await getUpload(ws, presigned.upload_id);
      expect(upload.data).toMatchObject({
        state: 'awaiting_upload',
        kind: 'quality',
        file_name: 'may.csv',
        rows_processed: 0,
        bytes: null,
      });
    });

    it(
      '422 for a bad kind or an unknown field, 401 without a key, ' + '403 with another workstream key, 404 for an unknown upload',
      async () => {
        const ws = await newWorkstream();
        const other = await newWorkstream();
        // Bodies the typed client would not send (a kind not in the enum, none, an unknown field): raw http().
        const presignRaw = (body: unknown) =>
          http('POST', `/v1/workstreams/${ws.id}/performance/generate-presigned-url`, { headers: { 'x-api-key': ws.key }, body });
        const badKind = await presignRaw({ kind: 'speed' });
        expect(badKind).toMatchObject({
          status: 422,
          body: { errors: [{ field: 'kind', message: 'kind must be one of: quality, throughput' }] },
        });
        const missingKind = await presignRaw({});
        expect(missingKind).toMatchObject({ status: 422, body: { errors: [{ field: 'kind', message: 'kind is required' }] } });
        const unknown = await presignRaw({ kind: 'quality', bucket: 'x' });
        expect(unknown).toMatchObject({
          status: 422,
          body: { errors: [{ field: 'bucket', message: 'property bucket should not exist' }] },
        });
        const noKey = await apiClient().POST('/v1/workstreams/{workstream_id}/performance/generate-presigned-url', {
          params: { path: { workstream_id: ws.id } },
          body: { kind: 'quality' },
        });
        expect(noKey.response.status).toBe(401);
        const wrongKey = await presign({ id: ws.id, key: other.key });
        expect(wrongKey.status).toBe(403);
        const { upload_id } = await ok(presign(ws), 201);
        expect((await getUpload({ id: ws.id, key: other.key }, upload_id)).status).toBe(403);
        expect((await getUpload(other, upload_id)).status).toBe(404);
        expect(await getUpload(ws, 'upl_nope')).toMatchObject({ status: 404, error: { message: 'upload upl_nope not found' } });
      },
    );

    it('PUT refuses a wrong content type (415), a missing, tampered or expired signature (403), and a second file (409)', async () => {
      const ws = await newWorkstream();
      const { upload_url, upload_id } = await ok(presign(ws), 201);
      const csv = `${QUALITY_HEADER}\n`;
      expect(await put(upload_url, csv, 'application/json')).toMatchObject({
        status: 415,
        body: { message: 'Content-Type must be text/csv (UTF-8) (got application/json)' },
      });
      expect(await put(upload_url, csv, 'text/csv; charset=latin1')).toMatchObject({ status: 415 });
      const bare = upload_url.split('?')[0];
      expect(await put(bare, csv)).toMatchObject({
        status: 403,
        body: { message: 'Forbidden: the upload URL must carry its expires and signature parameters' },
      });
      const tampered = upload_url.replace(/expires=(\d+)/, (_, n: string) => `expires=${Number(n) + 60}`);
      expect(await put(tampered, csv)).toMatchObject({ status: 403, body: { message: 'Forbidden: the upload URL signature is invalid' } });
      const otherUpload = upload_url.replace(upload_id, (await ok(presign(ws), 201)).upload_id);
      expect((await put(otherUpload, csv)).status).toBe(403);
      // Signed like the gateway signs, but already expired.
      const signingKey = sha256(`presigned-url\n${loadEnv(BaseEnv, stack.appEnv).secretsKey}`);
      const expired = `${stack.gatewayUrl}${signPath(signingKey, 'PUT', `/uploads/performance/${upload_id}`, new Date(Date.now() - 1000))}`;
      expect(await put(expired, csv)).toMatchObject({ status: 403, body: { message: 'Forbidden: this upload URL has expired' } });
      expect((await getUpload(ws, upload_id)).data?.state).toBe('awaiting_upload');

      const first = await put(upload_url, csv);
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ upload_id, state: 'queued', bytes: Buffer.byteLength(csv) });
      const second = await put(upload_url, csv);
      expect(second).toMatchObject({
        status: 409,
        body: { message: `upload ${upload_id} has already been received; generate a new presigned URL for another file` },
      });
      expect(await finished(ws, upload_id)).toMatchObject({ state: 'completed', rows_processed: 0 });
    });
  });

  describe('CSV processing', () => {
    it(
      'fails an upload whose header names unknown or repeated columns, ' + 'lacks a required column, or is empty, storing nothing',
      async () => {
        const ws = await newWorkstream();
        const cases: ['quality' | 'throughput', string, string][] = [
          [
            'quality',
            'use_case_id,task_definition_id,worker_id,review_completed_at,review_score,colour\nuc-1,td-1,a,2024-05-01T00:00:00Z,1,red',
            "unknown CSV column(s): colour (columns are the record's field names, plus errors.<key>, metadata.<key>, measurements.<key>)",
          ],
          [
            'quality',
            'use_case_id,task_definition_id,worker_id,review_completed_at,review_score,errors\nuc-1,td-1,a,2024-05-01T00:00:00Z,1,{}',
            "unknown CSV column(s): errors (columns are the record's field names, plus errors.<key>, metadata.<key>, measurements.<key>)",
          ],
          [
            'quality',
            'use_case_id,task_definition_id,worker_id,review_completed_at\nuc-1,td-1,a,2024-05-01T00:00:00Z',
            'CSV header lacks required column(s): review_score',
          ],
          ['throughput', 'worker_id,worker_id,task_completed_at\na,a,2024-05-01T00:00:00Z', 'CSV column(s) listed twice: worker_id'],
          ['throughput', '', 'the file is empty: a CSV upload starts with a header row of field names'],
          [
            'throughput',
            'worker_id,task_completed_at\n"a,2024',
            'the file could not be read as CSV: Quote Not Closed: the parsing is finished with an opening quote at line 2',
          ],
        ];
        for (const [kind, csv, failure] of cases) {
          const upload = await uploadCsv(ws, kind, csv);
          expect({ csv, state: upload.state, failure: upload.failure }).toEqual({ csv, state: 'failed', failure });
        }
        expect([await reportedRecords(ws.id, ws.key, 'quality'), await reportedRecords(ws.id, ws.key, 'throughput')]).toEqual([0, 0]);
      },
    );

    it(
      'refuses 60 KB number cells row by row, ' + 'and keeps answering RPCs (submissions, upload status) while such a file imports',
      async () => {
        const ws = await newWorkstream();
        const rows = 30_000;
        // Three rows with two 60 KB "numbers" each: a backtracking pattern spent longer on one such row than
        // the gateway waits for an answer (RPC_TIMEOUT_MS, 10 s).
        const longEvery = 10_000;
        const huge = `${'1'.repeat(60_000)}x`;
        const lines = ['use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,review_duration'];
        for (let i = 1; i <= rows; i++)
          lines.push(`uc-1,td-1,r${i},worker-${i % 7},2024-05-01T08:00:00Z,${i % longEvery === 0 ? `${huge},${huge}` : '0.5,12'}`);
        const { upload_url, upload_id } = await ok(presign(ws), 201);
        expect((await put(upload_url, lines.join('\n'))).status).toBe(200);

        // Alternate a status read and a quality submission (both RPCs to the performance service) until the
        // import ends; every one must be answered (a blocked service would make the gateway answer 503).
        const answers: { what: string; status: number }[] = [];
        const statesSeen = new Set<string>();
        let upload: Upload | undefined;
        for (let i = 0; !upload; i++) {
          const status = await getUpload(ws, upload_id);
          answers.push({ what: 'upload status', status: status.status });
          const state = status.data?.state ?? 'unanswered';
          statesSeen.add(state);
          if (['completed', 'failed'].includes(state)) upload = status.data;
          const during = { use_case_id: 'uc-2', task_definition_id: 'td-3', unique_id: `during-${i}`, worker_id: 'w' };
          const submitted = await postRecord(
            'task_reviewed',
            ws.id,
            reviewOf(ws, { ...during, review_completed_at: '2024-05-02T08:00:00Z', review_score: 0.7 }),
            ws.key,
          );
          answers.push({ what: 'submission', status: submitted.status });
        }
        expect(answers.filter((answer) => answer.status !== (answer.what === 'submission' ? 202 : 200))).toEqual([]);
        // The requests overlapped the import: at least one status read was answered while it ran.
        expect(statesSeen.has('processing')).toBe(true);
        const long = Array.from({ length: rows / longEvery }, (_, k) => (k + 1) * longEvery + 1);
        expect(upload).toMatchObject({
          state: 'completed',
          rows_processed: rows,
          rows_stored: rows - long.length,
          rows_rejected: long.length,
        });
        expect(upload!.rejections).toEqual(
          long.map((row) => ({
            row,
            errors: [
              { field: 'review_score', message: 'review_score must be a number of at most 64 characters' },
              { field: 'review_duration', message: 'review_duration must be a number of at most 64 characters' },
            ],
          })),
        );
      },
      120_000,
    );

    it('imports a 40,000-row file streamed from the test, and caps the stored rejections', async () => {
      const ws = await newWorkstream();
      const total = 40_000;
      const badEvery = 20; // every 20th row has a score out of range: 2,000 rejections, 1,000 kept
      const { upload_url, upload_id } = await ok(presign(ws), 201);
      async function* rows(): AsyncGenerator<Uint8Array> {
        yield Buffer.from('use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,errors.missing_box\n');
        let chunk = '';
        for (let i = 1; i <= total; i++) {
          const score = i % badEvery === 0 ? 2 : (i % 101) / 100;
          chunk +=
            `uc-1,td-${(i % 2) + 1},r${i},worker-${i % 17},` +
            `2024-05-${String((i % 28) + 1).padStart(2, '0')}T08:00:00Z,${score},${i % 3}\n`;
          if (chunk.length > 64 * 1024) {
            yield Buffer.from(chunk);
            chunk = '';
          }
        }
        yield Buffer.from(chunk);
      }
      const stored = await put(upload_url, rows());
      expect(stored.status).toBe(200);
      const upload = await finished(ws, upload_id, 300_000);
      const rejected = total / badEvery;
      expect(upload).toMatchObject({
        state: 'completed',
        rows_processed: total,
        rows_accepted: total - rejected,
        rows_stored: total - rejected,
        rows_rejected: rejected,
        rejections_truncated: true,
      });
      expect(upload.rejections).toHaveLength(1000);
      expect(upload.rejections[0]).toEqual({
        row: badEvery + 1,
        errors: [{ field: 'review_score', message: 'review_score must be between 0 and 1' }],
      });
      expect(upload.rejections[999].row).toBe(1000 * badEvery + 1);
      const overall = await ok(qualityReport(ws), 200);
      expect(overall.groups).toHaveLength(1);
      expect(overall.groups[0].count).toBe(total - rejected);
    }, 400_000);
  });

  describe('upload files on disk, and size limits', () => {
    it('refuses a PUT to an upload already received before reading its body (409)', async () => {
      const ws = await newWorkstream();
      const { upload_url, upload_id } = await ok(presign(ws), 201);
      expect((await put(upload_url, `${QUALITY_HEADER}\n`)).status).toBe(200);
      const second = await putHeadersOnly(upload_url, 1024 * 1024 * 1024);
      expect({ status: second.status, body: second.body }).toEqual({
        status: 409,
        body: JSON.stringify({ message: `upload ${upload_id} has already been received; generate a new presigned URL for another file` }),
      });
      expect(await finished(ws, upload_id)).toMatchObject({ state: 'completed' });
    });

    describe('per-kind limits (a second gateway with small ones)', () => {
      let gateway: AppInstance & { url: string };

      beforeAll(async () => {
        gateway = await startGateway({ QUALITY_CSV_MAX_BYTES: '2048', THROUGHPUT_CSV_MAX_BYTES: '1024' });
      }, 90_000);

      afterAll(async () => {
        await gateway.stop();
      });

      const presignThere = (ws: { id: string; key: string }, kind: 'quality' | 'throughput') =>
        ok(presignUpload(ws, { kind }, gateway.url), 201);
      const throughputCsv = (bytes: number) => {
        const head = 'worker_id,task_completed_at,metadata.note\nw1,2024-05-01T10:00:00Z,';
        return head + 'n'.repeat(bytes - head.length);
      };

      it(
        '413 over THROUGHPUT_CSV_MAX_BYTES, declared (before reading) or streamed; the upload stays open and takes a ' +
          'file within the limit',
        async () => {
          const ws = await newWorkstream();
          const { upload_url, upload_id } = await presignThere(ws, 'throughput');
          const tooLarge = { message: 'CSV file is larger than the limit of 1024 bytes' };
          expect(await put(upload_url, throughputCsv(1025))).toEqual({ status: 413, body: tooLarge });
          const declared = await putHeadersOnly(upload_url, 1025);
          expect({ status: declared.status, body: JSON.parse(declared.body) as unknown }).toEqual({ status: 413, body: tooLarge });
          async function* chunked(): AsyncGenerator<Uint8Array> {
            const csv = throughputCsv(1200);
            for (let i = 0; i < csv.length; i += 300) yield Buffer.from(csv.slice(i, i + 300));
          }
          expect(await put(upload_url, chunked())).toEqual({ status: 413, body: tooLarge });
          // Nothing of the refused bodies is kept: the blob store's own spec (libs/blob-store) proves a put over its limit keeps nothing.
          expect((await getUpload(ws, upload_id)).data?.state).toBe('awaiting_upload');
          const within = await put(upload_url, throughputCsv(1024));
          expect(within).toMatchObject({ status: 200, body: { state: 'queued', bytes: 1024 } });
          expect(await finished(ws, upload_id)).toMatchObject({ state: 'completed', rows_stored: 1 });
        },
      );

      it('a quality CSV has its own limit, QUALITY_CSV_MAX_BYTES', async () => {
        const ws = await newWorkstream();
        const row = 'uc-1,td-1,,ann@example.com,2024-05-01T10:00:00Z,0.9,,,,,,,';
        const csv = [QUALITY_HEADER, ...Array.from({ length: 20 }, () => row)].join('\n');
        expect(Buffer.byteLength(csv)).toBeGreaterThan(1024);
        expect(Buffer.byteLength(csv)).toBeLessThanOrEqual(2048);
        const { upload_url, upload_id } = await presignThere(ws, 'quality');
        expect((await put(upload_url, csv)).status).toBe(200);
        expect(await finished(ws, upload_id)).toMatchObject({ state: 'completed', rows_stored: 20 });
        const over = await presignThere(ws, 'quality');
        expect(await put(over.upload_url, `${csv}\n${'x'.repeat(2048)}`)).toEqual({
          status: 413,
          body: { message: 'CSV file is larger than the limit of 2048 bytes' },
        });
      });
    });
  });

  describe('reports', () => {
    // Deterministic data: 240 quality records over 4 days, 3 workers, 2 task definitions; 120 throughput records.
    const quality = Array.from({ length: 240 }, (_, i) => ({
      day: `2024-06-0${(i % 4) + 1}`,
      worker: `w${i % 3}`,
      td: i % 5 === 0 ? 'td-2' : 'td-1',
      score: ((i * 37) % 101) / 100,
      missing: i % 4,
      wrong: i % 7 === 0 ? 2 : 0,
    }));
    const throughput = Array.from({ length: 120 }, (_, i) => ({
      day: `2024-06-0${(i % 3) + 1}`,
      worker: `w${i % 4}`,
      tasks: (i % 3) + 1,
      subtasks: i % 5,
      duration: i % 6 === 0 ? null : 30 + (i % 11) * 10,
    }));
    let ws: { id: string; key: string };

    beforeAll(async () => {
      ws = await newWorkstream();
      const qualityCsv = ['use_case_id,task_definition_id,worker_id,review_completed_at,review_score,errors.missing_box,errors.wrong_label']
        .concat(quality.map((r) => `uc-1,${r.td},${r.worker},${r.day}T12:00:00Z,${r.score},${r.missing},${r.wrong || ''}`))
        .join('\n');
      expect(await uploadCsv(ws, 'quality', qualityCsv)).toMatchObject({ state: 'completed', rows_accepted: 240 });
      const throughputCsv = ['worker_id,task_completed_at,task_count,subtask_count,duration_seconds']
        .concat(throughput.map((r) => `${r.worker},${r.day}T12:00:00Z,${r.tasks},${r.subtasks},${r.duration ?? ''}`))
        .join('\n');
      expect(await uploadCsv(ws, 'throughput', throughputCsv)).toMatchObject({ state: 'completed', rows_accepted: 120 });
    });

    const expectQuality = (group: QualityGroup, rows: typeof quality) => {
      const scores = rows.map((r) => r.score);
      expect(group.count).toBe(rows.length);
      expect(group.mean_score).toBeCloseTo(mean(scores), 10);
      expect(group.p50_score).toBeCloseTo(percentile(scores, 0.5), 10);
      expect(group.p90_score).toBeCloseTo(percentile(scores, 0.9), 10);
      expect(group.min_score).toBe(Math.min(...scores));
      expect(group.max_score).toBe(Math.max(...scores));
      const wrong = rows.reduce((a, r) => a + r.wrong, 0);
      expect(group.errors).toEqual({
        missing_box: rows.reduce((a, r) => a + r.missing, 0),
        ...(rows.some((r) => r.wrong) ? { wrong_label: wrong } : {}),
      });
    };

    it('quality: overall and grouped by day, worker and task definition, matching figures computed here', async () => {
      const overall = await ok(qualityReport(ws), 200);
      expect(overall).toMatchObject({ from: null, to: null, group_by: null });
      expect(overall.groups.map((g) => g.key)).toEqual([null]);
      expectQuality(overall.groups[0], quality);
      const groupings: [ReportQuery['group_by'], (r: (typeof quality)[number]) => string][] = [
        ['day', (r) => r.day],
        ['worker', (r) => r.worker],
        ['task_definition', (r) => r.td],
        ['use_case', () => 'uc-1'],
      ];
      for (const [groupBy, keyOf] of groupings) {
        const result = await ok(qualityReport(ws, { group_by: groupBy }), 200);
        const keys = [...new Set(quality.map(keyOf))].sort();
        expect(result.groups.map((g) => g.key)).toEqual(keys);
        for (const group of result.groups)
          expectQuality(
            group,
            quality.filter((r) => keyOf(r) === group.key),
          );
      }
    });

    it('quality: from (inclusive) and to (exclusive) select by review_completed_at', async () => {
      const result = await ok(qualityReport(ws, { from: '2024-06-02', to: '2024-06-04T00:00:00Z', group_by: 'day' }), 200);
      expect(result).toMatchObject({ from: '2024-06-02T00:00:00.000Z', to: '2024-06-04T00:00:00.000Z', group_by: 'day' });
      expect(result.groups.map((g) => g.key)).toEqual(['2024-06-02', '2024-06-03']);
      expectQuality(
        result.groups[1],
        quality.filter((r) => r.day === '2024-06-03'),
      );
    });

    it('throughput: tasks, subtasks, tasks per hour of work and mean duration, matching figures computed here', async () => {
      const result = await ok(throughputReport(ws, { group_by: 'worker' }), 200);
      for (const group of result.groups) {
        const rows = throughput.filter((r) => r.worker === group.key);
        const timed = rows.filter((r) => r.duration !== null);
        const seconds = timed.reduce((a, r) => a + r.duration!, 0);
        expect(group).toEqual({
          key: group.key,
          records: rows.length,
          tasks: rows.reduce((a, r) => a + r.tasks, 0),
          subtasks: rows.reduce((a, r) => a + r.subtasks, 0),
          duration_seconds: seconds,
          mean_duration_seconds: expect.closeTo(seconds / timed.length, 10),
          tasks_per_hour: expect.closeTo(timed.reduce((a, r) => a + r.tasks, 0) / (seconds / 3600), 8),
        });
      }
      expect(result.groups.map((g) => g.key)).toEqual(['w0', 'w1', 'w2', 'w3']);
      const empty = await ok(throughputReport(ws, { from: '2030-01-01' }), 200);
      expect(empty.groups).toEqual([]);
    });

    it('format=csv exports the same figures as CSV', async () => {
      const result = await csvReport(ws, 'quality', { group_by: 'worker' });
      expect(result.response.status).toBe(200);
      expect(result.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(result.response.headers.get('content-disposition')).toBe(`attachment; filename="quality-report-${ws.id}.csv"`);
      const [header, ...lines] = (result.data ?? '').trim().split('\r\n');
      expect(header).toBe('worker,count,mean_score,p50_score,p90_score,min_score,max_score,errors.missing_box,errors.wrong_label');
      expect(lines).toHaveLength(3);
      const w1 = quality.filter((r) => r.worker === 'w1');
      const cells = lines[1].split(',');
      expect(cells[0]).toBe('w1');
      expect(Number(cells[1])).toBe(w1.length);
      expect(Number(cells[2])).toBeCloseTo(mean(w1.map((r) => r.score)), 10);
      expect(Number(cells[7])).toBe(w1.reduce((a, r) => a + r.missing, 0));
      const tp = (await csvReport(ws, 'throughput')).data ?? '';
      expect(tp.split('\r\n')[0]).toBe('group,records,tasks,subtasks,duration_seconds,mean_duration_seconds,tasks_per_hour');
      expect(tp.split('\r\n')[1].split(',').slice(0, 3)).toEqual(['all', '120', String(throughput.reduce((a, r) => a + r.tasks, 0))]);
    });

    it('format=csv neutralises client text that a spreadsheet would run as a formula (OWASP CSV injection)', async () => {
      const tenant = await newWorkstream();
      const workers = ['=HYPERLINK("http://x","y")', '+1+2', '-2+3', '@SUM(A1:A2)', '\tTAB', 'ann@example.com'];
      for (const worker_id of workers) {
        const submitted = await postRecord('task_reviewed', tenant.id, reviewOf(tenant, { worker_id }), tenant.key);
        expect(submitted.status).toBe(202);
      }
      const result = await csvReport(tenant, 'quality', { group_by: 'worker' });
      expect(result.response.status).toBe(200);
      const firstCells = (result.data ?? '')
        .split('\r\n')
        .slice(1, -1)
        .map((line) => line.slice(0, line.lastIndexOf(',1,0.5,0.5,0.5,0.5,0.5')));
      // Sorted by key as PostgreSQL sorts; each formula-like worker_id is one quoted cell starting with '.
      expect(firstCells.sort()).toEqual(
        [`"'=HYPERLINK(""http://x"",""y"")"`, `"'+1+2"`, `"'-2+3"`, `"'@SUM(A1:A2)"`, `"'\tTAB"`, 'ann@example.com'].sort(),
      );
    });

    it('422 for a bad group_by, format or bound, from not before to, or an unknown parameter; 403 for another key', async () => {
      const cases: [ReportQuery, string, string][] = [
        [{ from: 'last-week' }, 'from', 'from must be an ISO 8601 date or date-time'],
        [{ to: '2024-02-30' }, 'to', 'to must be an ISO 8601 date or date-time'],
        [{ from: '2024-06-03', to: '2024-06-02' }, 'to', 'to must be later than from'],
      ];
      for (const [query, field, message] of cases) {
        const result = await qualityReport(ws, query);
        expect({ query, status: result.status, errors: fieldErrors(result) }).toEqual({ query, status: 422, errors: [{ field, message }] });
      }
      // Values outside the documented enums and an unknown parameter: raw http(), which the typed client would not send.
      const rawCases: [string, string, string][] = [
        ['?group_by=month', 'group_by', 'group_by must be one of: day, worker, use_case, task_definition'],
        ['?format=xml', 'format', 'format must be one of: json, csv'],
        ['?colour=red', 'colour', 'property colour should not exist'],
      ];
      for (const [query, field, message] of rawCases) {
        const result = await http<{ errors: unknown[] }>('GET', `/v1/workstreams/${ws.id}/reports/quality${query}`, {
          headers: { 'x-api-key': ws.key },
        });
        expect({ query, status: result.status, errors: result.body.errors }).toEqual({ query, status: 422, errors: [{ field, message }] });
      }
      const other = await newWorkstream();
      expect((await throughputReport({ id: ws.id, key: other.key })).status).toBe(403);
    });
  });
});
