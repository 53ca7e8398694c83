/**
 * The OpenAPI 3 description of the gateway, written by hand in one place: served at /docs/openapi.json and
 * written to docs/openapi.json by `npm run openapi`. openapi.spec.ts checks that every route the gateway's
 * controllers declare is here and nothing else; openapi.integration-spec.ts calls every operation.
 */
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_KEY_MAX_LENGTH, IDEMPOTENT_REPLAYED_HEADER } from '@workline/contracts';

export type Security = 'apiKey' | 'basic' | 'apiKeyOrBasic' | 'worker' | 'admin' | 'signedUrl' | 'none';

interface Operation {
  summary: string;
  tag: string;
  security: Security;
  /** Success status and what it carries. */
  ok: [number, string];
  /** Error statuses beyond the ones every route of the group has. */
  errors?: number[];
  body?: 'json' | 'csv' | 'media';
  /** Takes an optional Idempotency-Key header (a creation a client may retry safely). */
  idempotent?: true;
  /** Documentation of the operation in docs/. */
  doc: string;
}

type Method = 'get' | 'post' | 'put' | 'delete';

const ERROR_TEXT: Record<number, string> = {
  400: 'Invalid JSON or body',
  401: 'Missing or bad credentials',
  403: 'Forbidden (or a bad or expired URL signature)',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'The API was withdrawn (V3_ENABLED=false)',
  413: 'Body larger than the limit',
  415: 'Unsupported Content-Type',
  422: 'Validation failed; the message names the fields',
  429: 'Rate limit, failed-authentication limit or quota exceeded (Retry-After)',
  503: 'A service did not answer in time',
};

const SECURITY: Record<Security, object[]> = {
  apiKey: [{ apiKey: [] }],
  basic: [{ basic: [] }],
  apiKeyOrBasic: [{ apiKey: [] }, { basic: [] }],
  worker: [{ workerToken: [] }],
  admin: [{ adminToken: [] }],
  signedUrl: [],
  none: [],
};

const AUTH_ERRORS: Record<Security, number[]> = {
  apiKey: [401, 429],
  basic: [401, 429],
  apiKeyOrBasic: [401, 429],
  worker: [401, 429],
  admin: [401, 429],
  signedUrl: [403],
  none: [],
};

const BODY_ERRORS = [400, 413, 415, 422];

const OPERATIONS: Record<string, Partial<Record<Method, Operation>>> = {
  '/health': {
    get: {
      summary: 'Readiness of the gateway (PostgreSQL, Redis, Kafka): {status} for anyone; every component with the admin token (optional Bearer)',
      tag: 'operations',
      security: 'none',
      ok: [200, 'Ready'],
      errors: [401, 429, 503],
      doc: 'docs/operations.md',
    },
  },
  '/health/ready': {
    get: { summary: 'Readiness (the same checks and answers as /health)', tag: 'operations', security: 'none', ok: [200, 'Ready'], errors: [401, 429, 503], doc: 'docs/operations.md' },
  },
  '/health/live': { get: { summary: 'Liveness: the process is up', tag: 'operations', security: 'none', ok: [200, 'Alive'], doc: 'docs/operations.md' } },
  '/metrics': { get: { summary: 'Prometheus metrics (text format)', tag: 'operations', security: 'none', ok: [200, 'Metrics'], doc: 'docs/operations.md' } },
  '/docs': { get: { summary: 'This API description as an HTML page', tag: 'operations', security: 'none', ok: [200, 'HTML'], doc: 'docs/operations.md' } },
  '/console': { get: { summary: 'The web console (worker and operator views)', tag: 'operations', security: 'none', ok: [200, 'HTML'], doc: 'docs/console.md' } },
  '/console/console.js': { get: { summary: 'The web console script', tag: 'operations', security: 'none', ok: [200, 'JavaScript'], doc: 'docs/console.md' } },
  '/console/console.css': { get: { summary: 'The web console styles', tag: 'operations', security: 'none', ok: [200, 'CSS'], doc: 'docs/console.md' } },
  '/docs/openapi.json': { get: { summary: 'This API description (OpenAPI 3 JSON)', tag: 'operations', security: 'none', ok: [200, 'OpenAPI document'], doc: 'docs/operations.md' } },
  '/docs/asyncapi.json': { get: { summary: 'The Kafka topics and their events (AsyncAPI 3 JSON)', tag: 'operations', security: 'none', ok: [200, 'AsyncAPI document'], doc: 'docs/events.md' } },
  '/docs/v3-migration.md': { get: { summary: 'Migration notes from platform API v3 to v4', tag: 'platform v3', security: 'none', ok: [200, 'Markdown'], doc: 'docs/v3-migration.md' } },
  '/v1/api-key': { get: { summary: 'Describe the API key used', tag: 'identity', security: 'apiKey', ok: [200, 'The key: id, scope, account, workstream'], doc: 'docs/admin-api.md' } },
  '/v1/workstreams/{workstreamId}/task_reviewed': { post: { summary: 'Submit a quality review record', tag: 'performance', security: 'apiKey', ok: [202, 'Accepted'], errors: [...BODY_ERRORS, 403, 404], body: 'json', doc: 'docs/performance-api.md' } },
  '/v1/workstreams/{workstreamId}/task_completed': { post: { summary: 'Submit a task completion record', tag: 'performance', security: 'apiKey', ok: [202, 'Accepted'], errors: [...BODY_ERRORS, 403, 404], body: 'json', doc: 'docs/performance-api.md' } },
  '/v1/workstreams/{workstreamId}/performance/generate-presigned-url': { post: { summary: 'Get a presigned URL for a bulk CSV upload', tag: 'performance', security: 'apiKey', ok: [201, 'The upload URL'], errors: [...BODY_ERRORS, 403, 404], body: 'json', doc: 'docs/performance-api.md' } },
  '/v1/workstreams/{workstreamId}/performance/uploads/{uploadId}': { get: { summary: 'State of a bulk CSV upload', tag: 'performance', security: 'apiKey', ok: [200, 'The upload'], errors: [403, 404], doc: 'docs/performance-api.md' } },
  '/v1/workstreams/{workstreamId}/reports/quality': { get: { summary: 'Quality report', tag: 'performance', security: 'apiKey', ok: [200, 'The report'], errors: [403, 404, 422], doc: 'docs/performance-api.md' } },
  '/v1/workstreams/{workstreamId}/reports/throughput': { get: { summary: 'Throughput report', tag: 'performance', security: 'apiKey', ok: [200, 'The report'], errors: [403, 404, 422], doc: 'docs/performance-api.md' } },
  '/uploads/performance/{uploadId}': { put: { summary: 'Upload a CSV file to a presigned URL', tag: 'performance', security: 'signedUrl', ok: [200, 'The upload'], errors: [404, 409, 413, 415, 422], body: 'csv', doc: 'docs/performance-api.md' } },
  '/v1/signed-url': { post: { summary: 'Get a presigned media upload URL', tag: 'oversight', security: 'apiKey', ok: [200, 'The upload URL'], errors: BODY_ERRORS, body: 'json', doc: 'docs/oversight-api.md' } },
  '/v1/tasks': { post: { summary: 'Create an oversight task', tag: 'oversight', security: 'apiKey', ok: [201, 'The task'], errors: [...BODY_ERRORS, 403, 404], body: 'json', idempotent: true, doc: 'docs/oversight-api.md' } },
  '/v1/tasks/{taskId}': { get: { summary: 'Read an oversight task', tag: 'oversight', security: 'apiKey', ok: [200, 'The task'], errors: [404], doc: 'docs/oversight-api.md' } },
  '/uploads/media/{mediaKey}': { put: { summary: 'Upload media to a presigned URL', tag: 'oversight', security: 'signedUrl', ok: [200, 'The stored media'], errors: [413, 415], body: 'media', doc: 'docs/oversight-api.md' } },
  '/media/tasks/{taskId}': { get: { summary: 'Download the media of a task (signed URL given to workers)', tag: 'oversight', security: 'signedUrl', ok: [200, 'The media bytes'], errors: [404], doc: 'docs/oversight-api.md' } },
  '/v1/deliveries': { get: { summary: 'List webhook and callback deliveries', tag: 'deliveries', security: 'apiKeyOrBasic', ok: [200, 'A page of deliveries'], errors: [422], doc: 'docs/webhooks.md' } },
  '/v1/deliveries/{id}': { get: { summary: 'Read a delivery with its attempts', tag: 'deliveries', security: 'apiKeyOrBasic', ok: [200, 'The delivery'], errors: [404], doc: 'docs/webhooks.md' } },
  '/v1/deliveries/{id}/redeliver': { post: { summary: 'Send a delivery again', tag: 'deliveries', security: 'apiKeyOrBasic', ok: [202, 'The new delivery'], errors: [404, 409], doc: 'docs/webhooks.md' } },
  '/v4/lines': {
    get: { summary: 'List the account\'s lines', tag: 'platform v4', security: 'basic', ok: [200, 'The lines'], doc: 'docs/platform-api.md' },
    post: { summary: 'Create a line', tag: 'platform v4', security: 'basic', ok: [201, 'The line'], errors: BODY_ERRORS, body: 'json', doc: 'docs/platform-api.md' },
  },
  '/v4/runs': { post: { summary: 'Create a run', tag: 'platform v4', security: 'basic', ok: [201, 'The run'], errors: [...BODY_ERRORS, 404], body: 'json', idempotent: true, doc: 'docs/platform-api.md' } },
  '/v4/runs/{id}': {
    get: { summary: 'Read a run with a page of its units', tag: 'platform v4', security: 'basic', ok: [200, 'The run'], errors: [404, 422], doc: 'docs/platform-api.md' },
    delete: { summary: 'Runs cannot be deleted (403; 404 for another account\'s run)', tag: 'platform v4', security: 'basic', ok: [200, 'Never'], errors: [403, 404], doc: 'docs/platform-api.md' },
  },
  '/v4/runs/{id}/abort': { post: { summary: 'Abort a run', tag: 'platform v4', security: 'basic', ok: [202, 'The run, aborting'], errors: [404, 409], doc: 'docs/platform-api.md' } },
  '/v3/tasks': { post: { summary: 'Create a task (deprecated: use POST /v4/runs)', tag: 'platform v3', security: 'basic', ok: [200, 'The task'], errors: [400, 410, 413, 415, 422], body: 'json', idempotent: true, doc: 'docs/platform-api.md' } },
  '/v3/tasks/{taskId}': { get: { summary: 'Read a task (deprecated: use GET /v4/runs/{id})', tag: 'platform v3', security: 'basic', ok: [200, 'The task'], errors: [404, 410], doc: 'docs/platform-api.md' } },
  '/workforce/v1/assignments/next': { post: { summary: 'Lease the next unit or task', tag: 'work', security: 'worker', ok: [200, 'The assignment (204: nothing to do)'], errors: BODY_ERRORS, body: 'json', doc: 'docs/work-api.md' } },
  '/workforce/v1/assignments/{assignmentId}/complete': { post: { summary: 'Complete an assignment (with `next` in the body, the next assignment comes in the answer)', tag: 'work', security: 'worker', ok: [200, 'Completed (and `next`: the next assignment or null, when asked for)'], errors: [...BODY_ERRORS, 404, 409], body: 'json', doc: 'docs/work-api.md' } },
  '/workforce/v1/assignments/{assignmentId}/flag': { post: { summary: 'Flag an assignment (with `next` in the body, the next assignment comes in the answer)', tag: 'work', security: 'worker', ok: [200, 'Flagged (and `next`: the next assignment or null, when asked for)'], errors: [...BODY_ERRORS, 404, 409], body: 'json', doc: 'docs/work-api.md' } },
  '/admin/v1/accounts': { post: { summary: 'Create an account (answers its Basic credentials once)', tag: 'admin', security: 'admin', ok: [201, 'The account'], errors: BODY_ERRORS, body: 'json', doc: 'docs/admin-api.md' } },
  '/admin/v1/accounts/{accountId}/lines': { post: { summary: 'Create a line for an account', tag: 'admin', security: 'admin', ok: [201, 'The line'], errors: [...BODY_ERRORS, 404], body: 'json', doc: 'docs/admin-api.md' } },
  '/admin/v1/accounts/{accountId}/api-keys': { post: { summary: 'Issue a project-level API key', tag: 'admin', security: 'admin', ok: [201, 'The key (secret shown once)'], errors: [...BODY_ERRORS, 404], body: 'json', doc: 'docs/admin-api.md' } },
  '/admin/v1/accounts/{accountId}/credentials/reset': { post: { summary: 'Reset an account\'s password', tag: 'admin', security: 'admin', ok: [200, 'The new credentials'], errors: [404], doc: 'docs/admin-api.md' } },
  '/admin/v1/workstreams': { post: { summary: 'Create a workstream', tag: 'admin', security: 'admin', ok: [201, 'The workstream'], errors: [...BODY_ERRORS, 404], body: 'json', doc: 'docs/admin-api.md' } },
  '/admin/v1/workstreams/{workstreamId}/api-keys': { post: { summary: 'Issue a workstream API key', tag: 'admin', security: 'admin', ok: [201, 'The key (secret shown once)'], errors: [...BODY_ERRORS, 404], body: 'json', doc: 'docs/admin-api.md' } },
  '/admin/v1/workstreams/{workstreamId}/configurations': { post: { summary: 'Set a workstream configuration', tag: 'admin', security: 'admin', ok: [201, 'The configuration'], errors: [...BODY_ERRORS, 404], body: 'json', doc: 'docs/performance-api.md' } },
  '/admin/v1/workstreams/{workstreamId}/buckets': { post: { summary: 'Mount a bucket (driver fs or s3) for oversight tasks', tag: 'admin', security: 'admin', ok: [201, 'The bucket'], errors: [...BODY_ERRORS, 404, 409], body: 'json', doc: 'docs/oversight-api.md' } },
  '/admin/v1/api-keys': { get: { summary: 'List API keys (no secrets)', tag: 'admin', security: 'admin', ok: [200, 'The keys'], errors: [422], doc: 'docs/admin-api.md' } },
  '/admin/v1/api-keys/{keyId}': { delete: { summary: 'Revoke an API key', tag: 'admin', security: 'admin', ok: [204, 'Revoked'], errors: [404], doc: 'docs/admin-api.md' } },
  '/admin/v1/api-keys/{keyId}/rotate': { post: { summary: 'Rotate an API key', tag: 'admin', security: 'admin', ok: [201, 'The new key'], errors: [404], doc: 'docs/admin-api.md' } },
  '/admin/v1/tasks': { get: { summary: 'List oversight tasks of every account, newest first (filter by workstream and state)', tag: 'admin', security: 'admin', ok: [200, 'A page of tasks'], errors: [422], doc: 'docs/admin-api.md' } },
  '/admin/v1/workstreams/{workstreamId}/reports/quality': { get: { summary: 'Quality report of any workstream', tag: 'admin', security: 'admin', ok: [200, 'The report'], errors: [404, 422], doc: 'docs/admin-api.md' } },
  '/admin/v1/workstreams/{workstreamId}/reports/throughput': { get: { summary: 'Throughput report of any workstream', tag: 'admin', security: 'admin', ok: [200, 'The report'], errors: [404, 422], doc: 'docs/admin-api.md' } },
  '/admin/v1/workers': { post: { summary: 'Register a worker (answers its token once)', tag: 'admin', security: 'admin', ok: [201, 'The worker'], errors: BODY_ERRORS, body: 'json', doc: 'docs/admin-api.md' } },
};

const BODY_CONTENT: Record<NonNullable<Operation['body']>, object> = {
  json: { 'application/json': { schema: { type: 'object' } } },
  csv: { 'text/csv': { schema: { type: 'string' } } },
  media: { '*/*': { schema: { type: 'string', format: 'binary' } } },
};

const RATE_HEADERS = {
  'X-RateLimit-Limit': { schema: { type: 'integer' }, description: 'Requests per minute allowed to this credential in this API group' },
  'X-RateLimit-Remaining': { schema: { type: 'integer' }, description: 'Requests left in the current window' },
  'X-RateLimit-Reset': { schema: { type: 'integer' }, description: 'Seconds until one more request is accepted' },
};

const IDEMPOTENCY_PARAMETER = {
  name: IDEMPOTENCY_KEY_HEADER,
  in: 'header',
  required: false,
  schema: { type: 'string', minLength: 1, maxLength: IDEMPOTENCY_KEY_MAX_LENGTH, pattern: '^[\\x20-\\x7E]+$' },
  description:
    'Makes the creation safe to retry: the same key with the same body answers the first creation again (same status and resource, ' +
    'nothing created twice, marked Idempotent-Replayed: true); with another body it is a 422 (v3: 102, HTTP 400). Scope: the workstream (tasks) or account (runs). See docs/decisions.md.',
};

const REPLAYED_HEADER = { schema: { type: 'string', enum: ['true'] }, description: 'Present when the answer replays an earlier creation with the same Idempotency-Key' };

function operation(method: Method, path: string, op: Operation): object {
  const limited = !['none', 'signedUrl'].includes(op.security);
  const okHeaders = { ...(limited ? RATE_HEADERS : {}), ...(op.idempotent ? { [IDEMPOTENT_REPLAYED_HEADER]: REPLAYED_HEADER } : {}) };
  const statuses = [...new Set([...AUTH_ERRORS[op.security], ...(op.errors ?? [])])].sort((a, b) => a - b);
  const responses: Record<string, object> = {
    [op.ok[0]]: { description: op.ok[1], ...(Object.keys(okHeaders).length ? { headers: okHeaders } : {}) },
  };
  for (const status of statuses) {
    responses[status] = {
      description: ERROR_TEXT[status],
      ...(status === 429 ? { headers: { 'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' }, ...RATE_HEADERS } } : {}),
    };
  }
  const params: object[] = [...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({ name, in: 'path', required: true, schema: { type: 'string' } }));
  if (op.idempotent) params.push(IDEMPOTENCY_PARAMETER);
  return {
    operationId: `${method}${path.replace(/[{}]/g, '').replace(/[^a-zA-Z0-9]+(.)?/g, (_m, c: string | undefined) => (c ?? '').toUpperCase())}`,
    summary: op.summary,
    description: `See ${op.doc}.`,
    tags: [op.tag],
    security: SECURITY[op.security],
    ...(params.length ? { parameters: params } : {}),
    ...(op.body ? { requestBody: { required: true, content: BODY_CONTENT[op.body] } } : {}),
    responses,
  };
}

export function openApiDocument(): object {
  const paths = Object.fromEntries(
    Object.entries(OPERATIONS).map(([path, methods]) => [path, Object.fromEntries(Object.entries(methods).map(([method, op]) => [method, operation(method as Method, path, op)]))]),
  );
  return {
    openapi: '3.0.3',
    info: {
      title: 'Workline',
      version: '1',
      description:
        'Public APIs (quality and oversight v1, platform v4 and deprecated v3), the work API for workers and the admin API. ' +
        'Error bodies: v4 {message}; v3 {status, error}; others {message, errors?}. Rate limits: docs/operations.md.',
    },
    servers: [{ url: '/' }],
    tags: ['operations', 'identity', 'performance', 'oversight', 'deliveries', 'platform v4', 'platform v3', 'work', 'admin'].map((name) => ({ name })),
    components: {
      securitySchemes: {
        apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' },
        basic: { type: 'http', scheme: 'basic' },
        workerToken: { type: 'http', scheme: 'bearer', description: 'The worker token issued by POST /admin/v1/workers' },
        adminToken: { type: 'http', scheme: 'bearer', description: 'ADMIN_TOKEN' },
      },
    },
    paths,
  };
}

export interface DocumentedOperation extends Operation {
  method: Method;
  path: string;
}

export function documentedOperations(): DocumentedOperation[] {
  return Object.entries(OPERATIONS).flatMap(([path, methods]) => Object.entries(methods).map(([method, op]) => ({ ...op, method: method as Method, path })));
}

/** What an operation answers to a request without credentials: the test calls each route this way. */
export function unauthenticatedStatus(security: Security): number {
  if (security === 'none') return 200;
  return security === 'signedUrl' ? 403 : 401;
}
