import { type ContractClass, V3, V3_DESCRIPTIONS } from '@workline/contracts';
import { type Content, ref } from './api-docs';

/**
 * The examples of the API description, by operation ("METHOD /path" as the document names it): the request
 * body, the success answer, and the text of non-JSON media types. One story: the same account, workstream,
 * task and run throughout. openapi.ts puts them in the document; openapi.spec.ts validates each against its
 * schema and checks that every operation has them, so an example cannot drift from the contract.
 */
export interface OperationExamples {
  /** The JSON request body. */
  body?: unknown;
  /** The JSON answer of the operation's success status. */
  answer?: unknown;
  /** Request bodies of text media types, by media type. */
  bodyText?: Record<string, string>;
  /** Success answers of text media types, by media type. */
  answerText?: Record<string, string>;
  /** Error answers of a shape of their own (not the API group's error body), by status. */
  errors?: Record<number, unknown>;
}

const ACCOUNT = '0193a6f2-5b1c-7d3e-9a40-2f6e8c1d4b70';
const WORKSTREAM = '0193a6f2-6c2d-7e4f-8b51-3a7f9d2e5c81';
const CONFIGURATION = '0193a6f2-7d3e-7f50-9c62-4b80ae3f6d92';
const LINE = '0193a6f2-8e4f-7061-8d73-5c91bf4a7ea3';
const RUN = '0193a6f3-0a11-7b22-9c33-6da2c05b8fb4';
const TASK = 'tsk_0193a6f3-1b22-7c33-8d44-7eb3d16c90c5';
const MEDIA = 'med_0193a6f3-2c33-7d44-9e55-8fc4e27da1d6';
const UPLOAD = 'upl_0193a6f3-3d44-7e55-8f66-90d5f38eb2e7';
const DELIVERY = '0193a6f3-4e55-7f66-9077-a1e6049fc3f8';
const KEY = '0193a6f2-9f50-7172-8e84-6da2c05b8fb4';
const GATEWAY = 'https://workline.example.com';
const NOW = '2026-11-30T09:15:00.000Z';
const LATER = '2026-11-30T09:25:00.000Z';
const SIGNED = 'expires=1796030100&signature=3f1d9c0e4b7a2f6e8d5c1b0a9e8f7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a1f0e';

const QUALITY_RECORD = {
  workstream_id: WORKSTREAM,
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  unique_id: 'review-0001',
  task_id: 'task-0001',
  worker_id: 'ann@example.com',
  review_completed_at: '2026-11-29T12:00:00Z',
  review_score: 0.9,
  review_type: 'QA',
  errors: { missing_box: 1 },
};

const THROUGHPUT_RECORD = {
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  task_id: 'task-0001',
  worker_id: 'bob@example.com',
  task_completed_at: '2026-11-29T12:00:00Z',
  duration_seconds: 95,
  task_count: 1,
};

const WORKSTREAM_ANSWER = {
  id: WORKSTREAM,
  account_id: ACCOUNT,
  name: 'Receipts',
  use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
  qc_score_threshold: 0.7,
  qc_sample_rate: 0.05,
  created_at: NOW,
};

const API_KEY = {
  id: KEY,
  scope: 'workstream',
  account_id: ACCOUNT,
  workstream_id: WORKSTREAM,
  prefix: 'wlk_QK3s',
  created_at: NOW,
  last_used_at: LATER,
  revoked_at: null,
  expires_at: null,
  rotated_from_id: null,
};

const NEW_KEY = { id: KEY, key: 'wlk_QK3sX2b9Vt0cJrHq7LmYp4NfAe8GdKw1' };

const UPLOAD_STATE = {
  upload_id: UPLOAD,
  workstream_id: WORKSTREAM,
  kind: 'quality',
  file_name: 'reviews-2026-11.csv',
  state: 'completed',
  expires_at: '2026-11-30T10:15:00.000Z',
  created_at: NOW,
  received_at: '2026-11-30T09:16:00.000Z',
  started_at: '2026-11-30T09:16:00.100Z',
  finished_at: '2026-11-30T09:16:02.400Z',
  bytes: 183,
  rows_processed: 2,
  rows_accepted: 1,
  rows_stored: 1,
  rows_replaced: 0,
  rows_duplicates_ignored: 0,
  rows_rejected: 1,
  rejections: [{ row: 3, errors: [{ field: 'review_score', message: 'review_score must be between 0 and 1' }] }],
  rejections_truncated: false,
  failure: null,
};

const QUALITY_REPORT = {
  workstream_id: WORKSTREAM,
  kind: 'quality',
  from: '2026-11-01T00:00:00.000Z',
  to: null,
  group_by: 'worker',
  groups: [
    {
      key: 'ann@example.com',
      count: 2,
      mean_score: 0.85,
      p50_score: 0.85,
      p90_score: 0.89,
      min_score: 0.8,
      max_score: 0.9,
      errors: { missing_box: 1 },
    },
  ],
};

const THROUGHPUT_REPORT = {
  workstream_id: WORKSTREAM,
  kind: 'throughput',
  from: null,
  to: null,
  group_by: null,
  groups: [{ key: null, records: 3, tasks: 3, subtasks: 0, duration_seconds: 285, mean_duration_seconds: 95, tasks_per_hour: 37.89 }],
};

const QUALITY_CSV =
  'key,count,mean_score,p50_score,p90_score,min_score,max_score,errors\nann@example.com,2,0.85,0.85,0.89,0.8,0.9,missing_box=1\n';
const THROUGHPUT_CSV = 'key,records,tasks,subtasks,duration_seconds,mean_duration_seconds,tasks_per_hour\n,3,3,0,285,95,37.89\n';

const TASK_ANSWER = {
  task_id: TASK,
  state: 'COMPLETED',
  media_key: MEDIA,
  configuration_id: CONFIGURATION,
  bucket_id: null,
  created_at: NOW,
  updated_at: LATER,
  result: {
    updated_tags: [{ value: 'receipt', confidence_score: 0.97 }],
    existing_tags: [{ value: 'document', confidence_score: 0.6 }],
    metadata: [{ key: 'store', value: 'north' }],
  },
};

const DELIVERY_ANSWER = {
  id: DELIVERY,
  event_type: 'task.result_available',
  task_id: TASK,
  run_id: null,
  url: 'https://client.example.com/hooks/workline',
  status: 'delivered',
  attempt_count: 1,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  created_at: LATER,
  delivered_at: '2026-11-30T09:25:00.300Z',
  dead_at: null,
};

const RUN_CREATED = { id: RUN, line_id: LINE, status: 'Processing', created_at: '2026-11-30T09:15:00Z' };

const UNIT_ASSIGNMENT = {
  assignment_id: 'asgu_0193a6f3-5f66-7077-8188-b2f7150ad409',
  kind: 'unit',
  run_id: RUN,
  line_id: LINE,
  input: { identifier: 'img-1', image_url: 'https://example.com/1.jpg' },
  lease_expires_at: '2026-11-30T09:30:00.000Z',
};

const TASK_ASSIGNMENT = {
  assignment_id: 'asgt_0193a6f3-6077-7188-9299-c308261be51a',
  kind: 'task',
  task_id: TASK,
  media_url: `${GATEWAY}/media/tasks/${TASK}?${SIGNED}`,
  media_type: 'image/png',
  existing_tags: [{ value: 'document', confidence_score: 0.6 }],
  metadata: [{ key: 'store', value: 'north' }],
  lease_expires_at: '2026-11-30T09:30:00.000Z',
};

const HEALTH = {
  status: 'ok',
  components: {
    gateway: { status: 'up', instance_id: 'gateway-7f3a' },
    redis: { status: 'up' },
    performance: { status: 'up', instance_id: 'performance-19c2' },
    oversight: { status: 'up', instance_id: 'oversight-8d04' },
    'platform-runs': { status: 'up', instance_id: 'platform-runs-2b7e' },
    'webhook-dispatcher': { status: 'up', instance_id: 'webhook-dispatcher-6a11' },
  },
};

const HEALTH_DOWN = {
  status: 'unavailable',
  message: 'redis is down: connect ECONNREFUSED 127.0.0.1:6379',
  components: { ...HEALTH.components, redis: { status: 'down', detail: 'connect ECONNREFUSED 127.0.0.1:6379' } },
};

const QUOTA_WINDOW = (limit: number, used: number, resets: string) => ({
  limit,
  default_limit: 10_000,
  custom: limit !== 10_000,
  used,
  resets_at: resets,
});

const S3_BUCKET = {
  endpoint: 'https://s3.eu-west-1.amazonaws.com',
  region: 'eu-west-1',
  bucket: 'client-images',
  prefix: 'photos/',
  access_key_id: 'AKIAIOSFODNN7EXAMPLE',
};

/** Support's limits for day and week, the default for the month. */
const TASK_QUOTA = {
  workstream_id: WORKSTREAM,
  day: QUOTA_WINDOW(20_000, 412, '2026-12-01T00:00:00.000Z'),
  week: QUOTA_WINDOW(100_000, 2_950, '2026-12-07T00:00:00.000Z'),
  month: QUOTA_WINDOW(10_000, 8_100, '2026-12-01T00:00:00.000Z'),
};

export const OPERATION_EXAMPLES: Record<string, OperationExamples> = {
  // ---- operations and documents ----
  'GET /health': { answer: HEALTH, errors: { 503: HEALTH_DOWN } },
  'GET /health/ready': { answer: HEALTH, errors: { 503: HEALTH_DOWN } },
  'GET /health/live': { answer: { status: 'ok' } },
  'GET /metrics': {
    answerText: {
      'text/plain':
        '# HELP http_requests_total HTTP requests answered, by route and status\n# TYPE http_requests_total ' +
        'counter\nhttp_requests_total{method="POST",route="/v1/tasks",status="201"} 42\n',
    },
  },
  'GET /docs': { answerText: { 'text/html': '<!doctype html>\n<html lang="en"><head><title>Workline API</title>…' } },
  'GET /docs/openapi.json': { answer: { openapi: '3.1.0', info: { title: 'Workline', version: '1' }, paths: {} } },
  'GET /docs/asyncapi.json': { answer: { asyncapi: '3.1.0', info: { title: 'Workline topics', version: '1' }, channels: {} } },
  'GET /docs/swagger-ui/{file}': { answerText: { 'text/javascript': '/*! Swagger UI */ …', 'text/css': '.swagger-ui { … }' } },
  'GET /docs/v3-migration.md': {
    answerText: { 'text/markdown': '# Moving from platform API v3 to v4\n\n| v3 | v4 |\n|---|---|\n| POST /v3/tasks | POST /v4/runs |\n' },
  },
  'GET /console': { answerText: { 'text/html': '<!doctype html>\n<html lang="en"><head><title>Workline console</title>…' } },
  'GET /console/console.js': { answerText: { 'text/javascript': "'use strict';\n…" } },
  'GET /console/console.css': { answerText: { 'text/css': 'body { font-family: sans-serif; }\n…' } },

  // ---- admin ----
  'POST /admin/v1/accounts': {
    body: { name: 'Acme' },
    answer: { id: ACCOUNT, name: 'Acme', username: 'acme-fcb691', password: 'RG9oSkj-pxO34aplDYMOR11y' },
  },
  'POST /admin/v1/accounts/{account_id}/lines': { body: { name: 'Receipt lines' }, answer: { id: LINE, name: 'Receipt lines' } },
  'POST /admin/v1/accounts/{account_id}/api-keys': { body: {}, answer: NEW_KEY },
  'POST /admin/v1/accounts/{account_id}/credentials/reset': {
    answer: { id: ACCOUNT, username: 'acme-fcb691', password: 'Zp0xQm4-Lw7eT2vbNs9Ka1Jc' },
  },
  'POST /admin/v1/workstreams': {
    body: {
      account_id: ACCOUNT,
      name: 'Receipts',
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
      qc_score_threshold: 0.7,
      qc_sample_rate: 0.05,
    },
    answer: WORKSTREAM_ANSWER,
  },
  'POST /admin/v1/workstreams/{workstream_id}/api-keys': { body: {}, answer: NEW_KEY },
  'POST /admin/v1/workstreams/{workstream_id}/configurations': {
    body: { name: 'Receipts', extended_events: true, tool_project_id: 'tp-7' },
    answer: {
      id: CONFIGURATION,
      workstream_id: WORKSTREAM,
      name: 'Receipts',
      extended_events: true,
      tool_project_id: 'tp-7',
      created_at: NOW,
    },
  },
  'POST /admin/v1/workstreams/{workstream_id}/buckets': {
    body: { driver: 's3', ...S3_BUCKET, secret_access_key: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' },
    // The answer shows every setting but the secret.
    answer: { id: 'bkt_3MvU9c2LqT', workstream_id: WORKSTREAM, driver: 's3', ...S3_BUCKET, force_path_style: false, created_at: NOW },
  },
  'GET /admin/v1/workstreams/{workstream_id}/task-quota': { answer: TASK_QUOTA },
  'PUT /admin/v1/workstreams/{workstream_id}/task-quota': { body: { day: 20_000, week: 100_000, month: null }, answer: TASK_QUOTA },
  'GET /admin/v1/api-keys': { answer: [API_KEY] },
  'DELETE /admin/v1/api-keys/{key_id}': {},
  'POST /admin/v1/api-keys/{key_id}/rotate': {
    body: { overlap_seconds: 3600 },
    answer: { id: '0193a6f4-0a11-7b22-8c33-d419372cf62b', key: 'wlk_R7tyM1c8Wq2zXs5Lp0VbHn6DgEa3JkFu' },
  },
  'POST /admin/v1/workers': {
    body: { email: 'ann@example.com', name: 'Ann' },
    answer: { id: '0193a6f4-1b22-7c33-9d44-e52a483d073c', token: 'wkt_9c1d4b7a2f6e8d5c1b0a9e8f7d6c5b4a' },
  },
  'GET /admin/v1/tasks': {
    answer: {
      tasks: [{ ...TASK_ANSWER, workstream_id: WORKSTREAM, account_id: ACCOUNT }],
      next_cursor: 'eyJjIjoiMjAyNi0xMS0zMFQwOToxNTowMFoiLCJpIjoidHNrXzAxOTMifQ',
    },
  },
  'GET /admin/v1/runs': {
    answer: {
      runs: [
        {
          id: RUN,
          account_id: ACCOUNT,
          line_id: LINE,
          api: 'v4',
          status: 'Processing',
          unit_count: 2,
          pending_units: 1,
          abort_requested: false,
          created_at: '2026-11-30T09:15:00.000Z',
          processed_at: null,
        },
      ],
      next_cursor: null,
    },
  },
  'GET /admin/v1/workstreams/{workstream_id}/reports/quality': { answer: QUALITY_REPORT, answerText: { 'text/csv': QUALITY_CSV } },
  'GET /admin/v1/workstreams/{workstream_id}/reports/throughput': { answer: THROUGHPUT_REPORT, answerText: { 'text/csv': THROUGHPUT_CSV } },

  // ---- identity ----
  'GET /v1/api-key': { answer: { id: KEY, scope: 'workstream', account_id: ACCOUNT, workstream_id: WORKSTREAM } },

  // ---- performance ----
  'POST /v1/workstreams/{workstream_id}/task_reviewed': { body: QUALITY_RECORD, answer: { message: 'Record stored' } },
  'POST /v1/workstreams/{workstream_id}/task_completed': { body: THROUGHPUT_RECORD, answer: { message: 'Record stored' } },
  'POST /v1/workstreams/{workstream_id}/performance/generate-presigned-url': {
    body: { kind: 'quality', file_name: 'reviews-2026-11.csv' },
    answer: {
      upload_url: `${GATEWAY}/uploads/performance/${UPLOAD}?${SIGNED}`,
      upload_id: UPLOAD,
      expires_at: '2026-11-30T10:15:00.000Z',
      method: 'PUT',
      content_type: 'text/csv',
    },
  },
  'PUT /uploads/performance/{upload_id}': {
    bodyText: {
      'text/csv':
        'use_case_id,task_definition_id,worker_id,review_completed_at,review_score\n' +
        'uc-1,td-1,ann@example.com,2026-11-29T12:00:00Z,0.8\n' +
        'uc-1,td-1,ann@example.com,2026-11-29T12:05:00Z,7\n',
    },
    answer: {
      ...UPLOAD_STATE,
      state: 'queued',
      started_at: null,
      finished_at: null,
      rows_processed: 0,
      rows_accepted: 0,
      rows_stored: 0,
      rows_rejected: 0,
      rejections: [],
    },
  },
  'GET /v1/workstreams/{workstream_id}/performance/uploads/{upload_id}': { answer: UPLOAD_STATE },
  'GET /v1/workstreams/{workstream_id}/reports/quality': { answer: QUALITY_REPORT, answerText: { 'text/csv': QUALITY_CSV } },
  'GET /v1/workstreams/{workstream_id}/reports/throughput': { answer: THROUGHPUT_REPORT, answerText: { 'text/csv': THROUGHPUT_CSV } },

  // ---- oversight ----
  'POST /v1/signed-url': {
    body: { configuration_id: CONFIGURATION },
    answer: { media_upload_url: `${GATEWAY}/uploads/media/${MEDIA}?${SIGNED}`, media_key: MEDIA, expires_at: '2026-11-30T10:15:00.000Z' },
  },
  'PUT /uploads/media/{media_key}': {
    bodyText: { 'text/plain': 'Receipt 0001: 2 × coffee, 1 × bagel' },
    answer: { media_key: MEDIA, content_type: 'image/png', size: 48_213 },
  },
  'POST /v1/tasks': {
    body: {
      media_key: MEDIA,
      configuration_id: CONFIGURATION,
      callback_url: 'https://client.example.com/hooks/workline',
      existing_tags: [{ value: 'document', confidence_score: 0.6 }],
      metadata: [{ key: 'store', value: 'north' }],
    },
    answer: { task_id: TASK },
  },
  'GET /v1/tasks/{id}': { answer: TASK_ANSWER },
  'GET /media/tasks/{task_id}': {},

  // ---- deliveries ----
  'GET /v1/deliveries': { answer: { deliveries: [DELIVERY_ANSWER], next_cursor: null } },
  'GET /v1/deliveries/{id}': {
    answer: {
      ...DELIVERY_ANSWER,
      attempts: [{ number: 1, attempted_at: LATER, status_code: 200, duration_ms: 184, error: null, response_excerpt: 'ok' }],
    },
  },
  'POST /v1/deliveries/{id}/redeliver': {
    answer: { ...DELIVERY_ANSWER, status: 'pending', next_attempt_at: '2026-11-30T10:00:00.000Z', delivered_at: null },
  },

  // ---- platform v4 and v3 ----
  'GET /v4/lines': { answer: [{ id: LINE, name: 'Receipt lines' }] },
  'POST /v4/lines': { body: { name: 'My own line' } },
  'POST /v4/runs': {
    body: {
      line_id: LINE,
      callback_url: 'https://client.example.com/runs',
      units: [
        { identifier: 'img-1', image_url: 'https://example.com/1.jpg' },
        { identifier: 'img-2', image_url: 'https://example.com/2.jpg' },
      ],
    },
    answer: RUN_CREATED,
  },
  'GET /v4/runs/{id}': {
    answer: {
      ...RUN_CREATED,
      status: 'Processed',
      processed_at: '2026-11-30T09:40:00Z',
      units: [
        {
          input: { identifier: 'img-1', image_url: 'https://example.com/1.jpg' },
          output: { label: 'receipt' },
          meta: { status: 'Completed', created_at: '2026-11-30T09:15:00Z', processed_at: '2026-11-30T09:31:00Z' },
        },
        {
          input: { identifier: 'img-2', image_url: 'https://example.com/2.jpg' },
          output: {},
          meta: { status: 'Flagged', created_at: '2026-11-30T09:15:00Z', processed_at: '2026-11-30T09:40:00Z' },
        },
      ],
    },
  },
  'DELETE /v4/runs/{id}': {},
  'POST /v4/runs/{id}/abort': { answer: { message: 'The run is being aborted' } },
  'POST /v3/tasks': {
    body: {
      template_id: LINE,
      callback_url: 'https://client.example.com/v3',
      resources: [{ identifier: 'img-1', image_url: 'https://example.com/1.jpg' }],
    },
    answer: { template_id: LINE, task_id: RUN, status: 'In-Progress', started_at: '2026-11-30T09:15:00Z' },
  },
  'GET /v3/tasks/{task_id}': {
    answer: {
      template_id: LINE,
      task_id: RUN,
      status: 'Completed',
      started_at: '2026-11-30T09:15:00Z',
      finished_at: '2026-11-30T09:31:00Z',
      resources: [{ identifier: 'img-1', image_url: 'https://example.com/1.jpg', label: 'receipt', extra: { status: 'Completed' } }],
    },
  },

  // ---- work ----
  'POST /workforce/v1/assignments/next': { body: { kind: 'unit', line_id: LINE }, answer: UNIT_ASSIGNMENT },
  'POST /workforce/v1/assignments/{id}/complete': {
    body: { output: { label: 'receipt' }, next: { kind: 'task' } },
    answer: { assignment_id: UNIT_ASSIGNMENT.assignment_id, status: 'Completed', next: TASK_ASSIGNMENT },
  },
  'POST /workforce/v1/assignments/{id}/flag': {
    body: { reason: 'The image is blank' },
    answer: { assignment_id: TASK_ASSIGNMENT.assignment_id, kind: 'task', task_id: TASK, state: 'ERROR' },
  },
};

/** A 422 that names each field, as the record endpoints answer it (v1, work and admin alike). */
const RECORD_ERRORS = {
  message: 'Invalid request: review_score must be between 0 and 1; property colour should not exist',
  errors: [
    { field: 'review_score', message: 'review_score must be between 0 and 1' },
    { field: 'colour', message: 'property colour should not exist' },
  ],
};

const ERROR_ID = '5c1b0a9e-8f7d-4c6b-a5f4-3e2d1c0b9a8f';

/** What each error status answers, in the body shape of each API group. */
export const ERROR_EXAMPLES: Record<'v4' | 'v3' | 'other', Record<number | 'default', unknown>> = {
  v4: {
    400: { message: 'Problem parsing the body' },
    401: { message: 'Bad credentials' },
    403: { message: 'Forbidden' },
    404: { message: 'Not found' },
    405: { message: 'The run is already processed and cannot be aborted' },
    409: { message: 'The run is already being aborted' },
    413: { message: 'Body is larger than the limit of 10485760 bytes' },
    415: { message: 'Content-Type must be application/json (got text/plain)' },
    422: { message: 'Invalid request: missing key line_id' },
    429: { message: 'Rate limit of 1200 requests per minute exceeded; retry in 12 s' },
    503: { message: 'platform-runs did not answer within 10000 ms' },
    default: { message: 'Internal server error', error_id: ERROR_ID },
  },
  v3: {
    400: { status: V3.BodyInvalid, error: V3_DESCRIPTIONS[V3.BodyInvalid], detail: 'missing key template_id' },
    401: { status: V3.Unauthorized, error: V3_DESCRIPTIONS[V3.Unauthorized] },
    404: { status: 404, error: 'Not found' },
    410: {
      status: 410,
      error: 'API version 3 has been withdrawn: use /v4 (migration notes: https://workline.example.com/docs/v3-migration.md)',
    },
    422: { status: V3.DataInvalid, error: V3_DESCRIPTIONS[V3.DataInvalid], detail: 'resources[0] is not of the expected type (object)' },
    429: { status: 429, error: 'Rate limit of 600 requests per minute exceeded; retry in 30 s' },
    default: { status: V3.Internal, error: V3_DESCRIPTIONS[V3.Internal], error_id: ERROR_ID },
  },
  other: {
    400: { message: 'Body is not valid JSON: Unexpected end of JSON input' },
    401: { message: 'Invalid x-api-key' },
    403: { message: `Forbidden: this API key is not valid for workstream ${WORKSTREAM}` },
    404: { message: `workstream ${WORKSTREAM} not found` },
    405: { message: 'Method not allowed' },
    409: { message: 'The assignment is no longer yours: its lease ran out' },
    413: { message: 'Body is larger than the limit of 10485760 bytes' },
    415: { message: 'Content-Type must be application/json (got text/plain)' },
    422: RECORD_ERRORS,
    429: { message: 'Rate limit of 1200 requests per minute exceeded; retry in 12 s' },
    503: { message: 'performance did not answer within 10000 ms' },
    default: { message: 'Internal server error', error_id: ERROR_ID },
  },
};

/** A report answers JSON, or its CSV download with format=csv. */
export const reportContent = (cls: ContractClass): Content => ({ 'application/json': ref(cls), 'text/csv': { type: 'string' } });
