import {
  adminClient,
  adminHeaders,
  fieldErrors,
  http,
  newAccountId,
  newPerformanceAccount,
  ok,
  type PerformanceAccount,
  reportedRecords,
  testStack,
  callsOnly,
} from '@workline/testing';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

interface FieldErrors {
  message: string;
  errors: { field: string; message: string }[];
}

const STORED = 'Record stored';

/**
 * The routes' contract from outside: statuses, messages, validation, keys. What is stored of a record (every
 * field, unique_id, the QC outbox) is checked beside the service, in apps/performance/src/records-storage.
 */
describe('workstream performance API: task_reviewed, task_completed (real stack)', () => {
  const stack = testStack();
  const admin = adminClient();
  let account: PerformanceAccount;
  let accountId: string;
  let ws: string;
  let key: string;
  let otherWs: string;
  let otherKey: string;
  let projectKey: string;
  let foreignProjectKey: string;
  const review = (overrides?: Record<string, unknown>) => account.review(overrides);
  const completed = (overrides?: Record<string, unknown>) => account.completed(overrides);
  const post: PerformanceAccount['post'] = (...args) => account.post(...args);
  const count = (kind: 'quality' | 'throughput') => reportedRecords(ws, key, kind);

  beforeAll(async () => {
    account = await newPerformanceAccount('Perf Co');
    ({ accountId, ws, key, otherWs, otherKey } = account);
    // Project-level keys (no workstream), issued through the admin API as support does.
    const projectKeyOf = async (account_id: string) =>
      (await ok(admin.POST('/admin/v1/accounts/{account_id}/api-keys', { params: { path: { account_id } }, body: {} }), 201)).key;
    projectKey = await projectKeyOf(accountId);
    foreignProjectKey = await projectKeyOf(await newAccountId('Someone Else'));
  });

  describe('workstream quality-control settings (admin API)', () => {
    it('shows the settings given, and the defaults when none are given', async () => {
      const withDefaults = await ok(
        admin.POST('/admin/v1/workstreams', { body: { account_id: accountId, name: 'Defaults', use_cases: [] } }),
        201,
      );
      expect(withDefaults).toMatchObject({ qc_score_threshold: 0.5, qc_sample_rate: 0.05 });
      const set = await ok(
        admin.POST('/admin/v1/workstreams', {
          body: { account_id: accountId, name: 'Set', use_cases: [], qc_score_threshold: 0.8, qc_sample_rate: 0.25 },
        }),
        201,
      );
      expect(set).toMatchObject({ qc_score_threshold: 0.8, qc_sample_rate: 0.25 });
    });

    it('422 for settings outside 0..1 or not numbers', async () => {
      const cases: [{ qc_score_threshold?: number; qc_sample_rate?: number }, string, RegExp][] = [
        [{ qc_score_threshold: 1.5 }, 'qc_score_threshold', /must not be greater than 1/],
        [{ qc_sample_rate: -0.1 }, 'qc_sample_rate', /must not be less than 0/],
      ];
      for (const [extra, field, message] of cases) {
        const result = await admin.POST('/admin/v1/workstreams', { body: { account_id: accountId, name: 'Bad', use_cases: [], ...extra } });
        expect(result.response.status).toBe(422);
        expect(fieldErrors(result)).toContainEqual({ field, message: expect.stringMatching(message) });
      }
      // A string where a number belongs: raw http(), which the typed client would not send.
      const notNumber = await http<FieldErrors>('POST', '/admin/v1/workstreams', {
        headers: adminHeaders(),
        body: { account_id: accountId, name: 'Bad', use_cases: [], qc_sample_rate: '0.1' },
      });
      expect(notNumber.status).toBe(422);
      expect(notNumber.body.errors).toContainEqual({ field: 'qc_sample_rate', message: expect.stringMatching(/must be a number/) });
    });
  });

  describe('POST task_reviewed', () => {
    it('accepts every good form of each field (bounds, review types, date forms, nulls for optionals)', async () => {
      const good: Record<string, unknown>[] = [
        { review_score: 0 },
        { review_score: 1 },
        { review_score: 1.0, errors: {} },
        ...['QA', 'QC', 'Spot Check', 'Others'].map((review_type) => ({ review_type })),
        { review_completed_at: '2024-05-01T12:00Z' },
        { review_completed_at: '2024-05-01T12:00:00.123456789-05:30' },
        { review_completed_at: '2024-02-29T23:59:59' },
        { review_completed_at: '2024-05-01T12:00:00+0100' },
        { task_completed_at: null, dataset_id: null, errors: null, review_type: null },
        { errors: { a: 0, b: 1_000_000 }, review_metadata: {}, review_measurements: { flag: true, n: 1.5 } },
        { review_duration: 0, task_review_count: 0, subtask_review_count: 0, replace_duplicate: false },
        { use_case_id: 'uc-1', task_definition_id: 'td-2' },
        { use_case_id: 'uc-2', task_definition_id: 'td-3' },
        { worker_id: 'W-17' },
      ];
      for (const overrides of good) {
        const result = await post('task_reviewed', review(overrides));
        expect({ overrides, status: result.status, body: result.data }).toEqual({ overrides, status: 202, body: { message: STORED } });
      }
    });

    it('422 naming the field for every broken rule, and stores nothing', async () => {
      const before = await count('quality');
      const long = 'x'.repeat(201);
      const bad: [Record<string, unknown>, string, string][] = [
        [{ workstream_id: undefined }, 'workstream_id', 'workstream_id is required'],
        [{ use_case_id: undefined }, 'use_case_id', 'use_case_id is required'],
        [{ task_definition_id: undefined }, 'task_definition_id', 'task_definition_id is required'],
        [{ worker_id: undefined }, 'worker_id', 'worker_id is required'],
        [{ review_completed_at: undefined }, 'review_completed_at', 'review_completed_at is required'],
        [{ review_score: undefined }, 'review_score', 'review_score is required'],
        [{ review_score: null }, 'review_score', 'review_score is required'],
        [{ workstream_id: 'another-ws' }, 'workstream_id', `workstream_id must equal the workstream in the path (${ws})`],
        [{ workstream_id: 7 }, 'workstream_id', 'workstream_id must be a string'],
        [{ use_case_id: 'uc-9' }, 'use_case_id', `use_case_id "uc-9" is not a use case of workstream ${ws}`],
        [{ task_definition_id: 'td-3' }, 'task_definition_id', 'task_definition_id "td-3" is not a task definition of use case "uc-1"'],
        [{ review_score: '0.5' }, 'review_score', 'review_score must be a number'],
        [{ review_score: -0.01 }, 'review_score', 'review_score must be between 0 and 1'],
        [{ review_score: 1.01 }, 'review_score', 'review_score must be between 0 and 1'],
        [
          { review_completed_at: 'yesterday' },
          'review_completed_at',
          'review_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [
          { review_completed_at: '2024-02-30T10:00:00Z' },
          'review_completed_at',
          'review_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [
          { review_completed_at: '2024-05-01' },
          'review_completed_at',
          'review_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [
          { review_completed_at: '2024-05-01T24:00:00Z' },
          'review_completed_at',
          'review_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [
          { review_completed_at: 1714564800 },
          'review_completed_at',
          'review_completed_at must be an ISO 8601 date-time string, e.g. 2024-05-01T12:30:00Z',
        ],
        [
          { task_completed_at: '01/05/2024 10:00' },
          'task_completed_at',
          'task_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [{ errors: [] }, 'errors', 'errors must be an object'],
        [{ errors: 'missing_box' }, 'errors', 'errors must be an object'],
        [{ errors: { missing_box: -1 } }, 'errors.missing_box', 'errors.missing_box must be a non-negative integer'],
        [{ errors: { missing_box: 1.5 } }, 'errors.missing_box', 'errors.missing_box must be a non-negative integer'],
        [{ errors: { missing_box: '2' } }, 'errors.missing_box', 'errors.missing_box must be a non-negative integer'],
        [{ review_type: 'qa' }, 'review_type', 'review_type must be one of: QA, QC, Spot Check, Others'],
        [{ review_type: 'Other' }, 'review_type', 'review_type must be one of: QA, QC, Spot Check, Others'],
        [{ review_metadata: { shift: 3 } }, 'review_metadata.shift', 'review_metadata.shift must be a string'],
        [{ review_metadata: 'night' }, 'review_metadata', 'review_metadata must be an object'],
        [
          { review_measurements: { box: { w: 1 } } },
          'review_measurements.box',
          'review_measurements.box must be a string, a number or a boolean',
        ],
        [{ review_measurements: [1] }, 'review_measurements', 'review_measurements must be an object'],
        [{ task_review_count: -1 }, 'task_review_count', 'task_review_count must be a non-negative integer'],
        [{ task_review_count: 1.5 }, 'task_review_count', 'task_review_count must be a non-negative integer'],
        [{ subtask_review_count: '3' }, 'subtask_review_count', 'subtask_review_count must be a non-negative integer'],
        [{ review_duration: -5 }, 'review_duration', 'review_duration must be 0 or more'],
        [{ review_duration: '10' }, 'review_duration', 'review_duration must be a number'],
        [{ replace_duplicate: 'false' }, 'replace_duplicate', 'replace_duplicate must be a boolean'],
        [{ task_url: 'not a url' }, 'task_url', 'task_url must be an absolute URL'],
        [{ dataset_id: 5 }, 'dataset_id', 'dataset_id must be a string'],
        [{ worker_id: '  ' }, 'worker_id', 'worker_id must not be empty'],
        [{ unique_id: long }, 'unique_id', 'unique_id must be at most 200 characters'],
        [{ review_explanation: 'y'.repeat(10_001) }, 'review_explanation', 'review_explanation must be at most 10000 characters'],
        [{ reviewed_by: ['a'] }, 'reviewed_by', 'reviewed_by must be a string'],
        [{ color: 'red' }, 'color', 'property color should not exist'],
      ];
      for (const [overrides, field, message] of bad) {
        const result = await post('task_reviewed', review(overrides));
        expect({ overrides, status: result.status }).toEqual({ overrides, status: 422 });
        expect({ overrides, errors: fieldErrors(result) }).toEqual({ overrides, errors: [{ field, message }] });
        expect(result.error?.message).toBe(`Invalid request: ${message}`);
      }
      const several = await post('task_reviewed', { workstream_id: ws, review_score: 2 });
      expect(several.status).toBe(422);
      expect(fieldErrors(several)?.map((e) => e.field)).toEqual([
        'use_case_id',
        'task_definition_id',
        'worker_id',
        'review_completed_at',
        'review_score',
      ]);
      expect(await count('quality')).toBe(before);
    });

    it('without unique_id, every submission is a new record', async () => {
      const before = await count('quality');
      await post('task_reviewed', review({ task_id: 'same' }));
      await post('task_reviewed', review({ task_id: 'same' }));
      expect(await count('quality')).toBe(before + 2);
    });
  });

  describe('API keys and workstreams', () => {
    it('401 without a key or with an unknown key', async () => {
      const missing = await post('task_reviewed', review(), null);
      expect(missing).toMatchObject({ status: 401, error: { message: 'Missing x-api-key header' } });
      const unknown = await post('task_reviewed', review(), 'wlk_not-a-real-key');
      expect(unknown).toMatchObject({ status: 401, error: { message: 'Invalid x-api-key' } });
    });

    it(
      '403 for a key of another workstream (known or not) or of another account; ' + '404 for an unknown workstream with a project key',
      async () => {
        const before = await count('quality');
        const other = await post('task_reviewed', review(), otherKey);
        expect(other).toMatchObject({ status: 403, error: { message: `Forbidden: this API key is not valid for workstream ${ws}` } });
        const unknownWithWorkstreamKey = await post('task_reviewed', review({ workstream_id: 'no-such-ws' }), key, 'no-such-ws');
        expect(unknownWithWorkstreamKey.status).toBe(403);
        const foreign = await post('task_reviewed', review(), foreignProjectKey);
        expect(foreign).toMatchObject({ status: 403, error: { message: `Forbidden: this API key is not valid for workstream ${ws}` } });
        const unknown = await post('task_reviewed', review({ workstream_id: 'no-such-ws' }), projectKey, 'no-such-ws');
        expect(unknown).toMatchObject({ status: 404, error: { message: 'workstream no-such-ws not found' } });
        expect(await count('quality')).toBe(before);
      },
    );

    it('a project-level key of the account works for each of its workstreams', async () => {
      expect((await post('task_reviewed', review(), projectKey)).status).toBe(202);
      expect((await post('task_reviewed', review({ workstream_id: otherWs }), projectKey, otherWs)).status).toBe(202);
    });
  });

  describe('body errors on the performance routes', () => {
    it('400 for invalid JSON, 415 for another content type, 413 over the body limit, 422 for a body that is not an object', async () => {
      const invalid = await http<{ message: string }>('POST', `/v1/workstreams/${ws}/task_reviewed`, {
        headers: { 'x-api-key': key },
        body: '{"review_score": ',
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.message).toMatch(/^Body is not valid JSON: /);
      const text = await http('POST', `/v1/workstreams/${ws}/task_completed`, {
        headers: { 'x-api-key': key },
        body: 'worker_id=a',
        contentType: 'text/plain',
      });
      expect(text).toMatchObject({ status: 415, body: { message: 'Content-Type must be application/json (got text/plain)' } });
      const limit = Number(stack.appEnv.BODY_LIMIT_BYTES ?? 10 * 1024 * 1024);
      const huge = await http<{ message: string }>('POST', `/v1/workstreams/${ws}/task_reviewed`, {
        headers: { 'x-api-key': key },
        body: JSON.stringify(review({ review_explanation: 'z'.repeat(limit) })),
      });
      expect(huge).toMatchObject({ status: 413, body: { message: `Body is larger than the limit of ${limit} bytes` } });
      for (const body of ['[1, 2]', '"text"', '42']) {
        const notObject = await http<FieldErrors>('POST', `/v1/workstreams/${ws}/task_reviewed`, { headers: { 'x-api-key': key }, body });
        expect(notObject.status).toBe(422);
        expect(notObject.body).toEqual({
          message: 'Invalid request: the body must be a JSON object',
          errors: [{ field: '(body)', message: 'the body must be a JSON object' }],
        });
      }
    });
  });

  describe('POST task_completed', () => {
    it('422 naming the field for every broken rule', async () => {
      const before = await count('throughput');
      const bad: [Record<string, unknown>, string, string][] = [
        [{ worker_id: undefined }, 'worker_id', 'worker_id is required'],
        [{ task_completed_at: undefined }, 'task_completed_at', 'task_completed_at is required'],
        [
          { task_completed_at: '2024-13-01T00:00:00Z' },
          'task_completed_at',
          'task_completed_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z',
        ],
        [{ task_started_at: 'noon' }, 'task_started_at', 'task_started_at must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z'],
        [{ task_started_at: '2024-05-01T12:00:01Z' }, 'task_started_at', 'task_started_at must not be after task_completed_at'],
        [
          { task_started_at: '2024-05-01T11:59:00Z', duration_seconds: 30 },
          'duration_seconds',
          'duration_seconds must match task_completed_at - task_started_at (60 s) when all three are sent',
        ],
        [{ duration_seconds: -1 }, 'duration_seconds', 'duration_seconds must be 0 or more'],
        [{ task_count: 0 }, 'task_count', 'task_count must be an integer of 1 or more'],
        [{ task_count: 2.5 }, 'task_count', 'task_count must be an integer of 1 or more'],
        [{ subtask_count: -1 }, 'subtask_count', 'subtask_count must be a non-negative integer'],
        [{ task_definition_id: 'td-1' }, 'use_case_id', 'use_case_id is required when task_definition_id is sent'],
        [{ use_case_id: 'nope' }, 'use_case_id', `use_case_id "nope" is not a use case of workstream ${ws}`],
        [
          { use_case_id: 'uc-2', task_definition_id: 'td-1' },
          'task_definition_id',
          'task_definition_id "td-1" is not a task definition of use case "uc-2"',
        ],
        [{ workstream_id: otherWs }, 'workstream_id', `workstream_id must equal the workstream in the path (${ws})`],
        [{ task_metadata: { a: 1 } }, 'task_metadata.a', 'task_metadata.a must be a string'],
        [{ review_score: 1 }, 'review_score', 'property review_score should not exist'],
      ];
      for (const [overrides, field, message] of bad) {
        const result = await post('task_completed', completed(overrides));
        expect({ overrides, status: result.status, errors: fieldErrors(result) }).toEqual({
          overrides,
          status: 422,
          errors: [{ field, message }],
        });
      }
      expect(await count('throughput')).toBe(before);
    });
  });
});
