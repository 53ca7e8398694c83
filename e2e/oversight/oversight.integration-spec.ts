import type { Schemas, WorklineClient } from '@workline/client';
import { BaseEnv } from '@workline/config';
import { type DeliveryRequestedEvent, type EventEnvelope, type OversightTaskEvent, Topic } from '@workline/contracts';
import { SecretBox, signPath, urlSigningKey } from '@workline/secrets';
import { sign, verify } from '@workline/signature';
import { S3BlobStore, type S3Settings } from '@workline/blob-store';
import {
  adminClient,
  adminHeaders,
  apiClient,
  type AppInstance,
  completeTask,
  eventually,
  fieldErrors,
  flagTask,
  http,
  nextTask,
  ok,
  LoopbackReceiver,
  startAppInstance,
  testStack,
  freePort,
  takesTurnOn,
  leaseTask as lease,
  newWorkerToken as newWorker,
  stackLogs,
  startS3Server,
  TopicWatcher,
  withStatus,
} from '@workline/testing';
import { createServer } from 'node:net';
import { Readable } from 'node:stream';
import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const PNG = () => Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
const JPEG = () => Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(100)]);
const MP4 = () => Buffer.concat([Buffer.from('\0\0\0\x18ftypmp42', 'latin1'), randomBytes(100)]);

const secretsKey = () => testStack().appEnv.SECRETS_KEY ?? new BaseEnv().secretsKey;

interface Tenant {
  accountId: string;
  workstreamId: string;
  key: string;
  configurationId: string;
  extendedConfigurationId: string;
}

const admin = adminClient();

async function newTenant(): Promise<Tenant> {
  const account = await ok(admin.POST('/admin/v1/accounts', { body: { name: 'Oversight client' } }), 201);
  const workstream = await ok(
    admin.POST('/admin/v1/workstreams', { body: { account_id: account.id, name: 'Oversight', use_cases: [] } }),
    201,
  );
  const params = { path: { workstream_id: workstream.id } };
  const { key } = await ok(admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params, body: {} }), 201);
  const configuration = (body: Schemas['CreateConfigurationDto']) =>
    ok(admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', { params, body }), 201);
  const plain = await configuration({ name: 'Plain' });
  const extended = await configuration({ name: 'Extended', extended_events: true, tool_project_id: 'tp-42' });
  return { accountId: account.id, workstreamId: workstream.id, key, configurationId: plain.id, extendedConfigurationId: extended.id };
}

const asKey = (key: string) => ({ 'x-api-key': key });

async function grant(tenant: Tenant, configurationId = tenant.configurationId, base?: string): Promise<Schemas['MediaGrantAnswer']> {
  return ok(apiClient({ apiKey: tenant.key }, base).POST('/v1/signed-url', { body: { configuration_id: configurationId } }), 200);
}

/** Presigned URLs (upload and media) are used as handed out, or tampered with on purpose: fetch, not the typed client. */

async function put(url: string, bytes: Buffer, contentType?: string): Promise<{ status: number; body: { message?: string } }> {
  const response = await fetch(url, { method: 'PUT', headers: contentType ? { 'content-type': contentType } : {}, body: bytes });
  const text = await response.text();
  return { status: response.status, body: text ? (JSON.parse(text) as { message?: string }) : {} };
}

async function uploaded(tenant: Tenant, bytes: Buffer, contentType: string, configurationId = tenant.configurationId): Promise<string> {
  const g = await grant(tenant, configurationId);
  const result = await put(g.media_upload_url, bytes, contentType);
  if (result.status !== 200) throw new Error(`upload answered ${result.status}: ${JSON.stringify(result.body)}`);
  return g.media_key;
}

/** POST /v1/tasks with the tenant's key (typed client): the answer, with its status. */
function createTask(tenant: Tenant, body: Schemas['CreateTaskDto'], base?: string, headers: { 'Idempotency-Key'?: string } = {}) {
  return withStatus(apiClient({ apiKey: tenant.key }, base).POST('/v1/tasks', { params: { header: headers }, body }));
}

const idempotencyKey = () => `retry-${randomBytes(8).toString('hex')}`;
const withKey = (key: string) => ({ 'Idempotency-Key': key });

async function created(tenant: Tenant, body: Schemas['CreateTaskDto']): Promise<string> {
  return (await ok(createTask(tenant, body), 201)).task_id;
}

/**
 * The bucket rule, whatever the driver: clip.mp4 (a video) and notes.txt (text) in the bucket are 422,
 * nope.png (absent) is 404, and `escapeKey` (a key leaving the bucket) is 422.
 */
async function expectBucketRule(tenant: Tenant, bucketId: string, escapeKey: string): Promise<void> {
  const video = await createTask(tenant, { media_key: 'clip.mp4', bucket_id: bucketId, configuration_id: tenant.configurationId });
  expect(video.status).toBe(422);
  expect(video.error).toMatchObject({
    message:
      `Invalid request: media clip.mp4 in bucket ${bucketId} is a video (video/mp4): mounted buckets take images ` +
      `only; upload videos through POST /v1/signed-url`,
    errors: [{ field: 'media_key' }],
  });
  const text = await createTask(tenant, { media_key: 'notes.txt', bucket_id: bucketId, configuration_id: tenant.configurationId });
  expect(text.status).toBe(422);
  expect(text.error?.message).toMatch(/is not an image/);
  const escape = await createTask(tenant, { media_key: escapeKey, bucket_id: bucketId, configuration_id: tenant.configurationId });
  expect(escape.status).toBe(422);
  expect(escape.error?.message).toMatch(/leaves the bucket/);
  const missing = await createTask(tenant, { media_key: 'nope.png', bucket_id: bucketId, configuration_id: tenant.configurationId });
  expect(missing.status).toBe(404);
  expect(missing.error?.message).toBe(`media nope.png not found in bucket ${bucketId}`);
}

/** POST /admin/v1/workstreams/{workstream_id}/buckets (typed client; the admin's unless another): the answer, with its status. */
const registerBucket = (workstreamId: string, body: Schemas['CreateBucketDto'], client = admin) =>
  withStatus(client.POST('/admin/v1/workstreams/{workstream_id}/buckets', { params: { path: { workstream_id: workstreamId } }, body }));

const taskStatus = (tenant: Tenant, taskId: string) =>
  withStatus(apiClient({ apiKey: tenant.key }).GET('/v1/tasks/{id}', { params: { path: { id: taskId } } }));

/** Creates a task on a PNG in a mounted bucket, leases it, and fetches its media_url as the worker would. */
async function takeBucketPng(tenant: Tenant, worker: string, body: { media_key: string; bucket_id: string; callback_url?: string }) {
  const taskId = await created(tenant, { ...body, configuration_id: tenant.configurationId });
  expect((await taskStatus(tenant, taskId)).data).toMatchObject({ state: 'QUEUED', media_key: body.media_key, bucket_id: body.bucket_id });
  const assignment = await lease(worker, taskId);
  expect(assignment.media_type).toBe('image/png');
  const media = await fetch(assignment.media_url);
  expect(media.status).toBe(200);
  expect(media.headers.get('content-type')).toBe('image/png');
  expect(media.headers.get('x-content-type-options')).toBe('nosniff');
  return { taskId, assignment, bytes: Buffer.from(await media.arrayBuffer()) };
}

/** Leases (and flags) every task within reach until `next` answers 204: each lease checks the media. */
async function drainQueue(worker: string): Promise<void> {
  await eventually(
    async () => {
      const next = await nextTask(worker);
      if (next.status === 200) await flagTask(worker, next.data!.assignment_id, 'left over by another test');
      return next.status === 204;
    },
    { what: 'the queue to be empty' },
  );
}

/** The oversight event topics and the delivery topic from when the suite starts, as a consumer reads them. */
class EventLog {
  private watcher?: TopicWatcher;

  async start(): Promise<void> {
    this.watcher = await TopicWatcher.start([Topic.DeliveryRequested, Topic.TaskResultAvailable, Topic.TaskError]);
  }

  async stop(): Promise<void> {
    await this.watcher?.stop();
  }

  private of<T>(topic: Topic, taskId: string): T[] {
    return (this.watcher?.messages<EventEnvelope<unknown>>(topic) ?? [])
      .map((message) => message.value.data as T & { subject?: { task_id?: string }; task_id?: string })
      .filter((data) => (data.subject?.task_id ?? data.task_id) === taskId);
  }

  delivery(taskId: string): Promise<DeliveryRequestedEvent> {
    return eventually(() => this.of<DeliveryRequestedEvent>(Topic.DeliveryRequested, taskId)[0], {
      what: `the delivery request of task ${taskId}`,
    });
  }

  taskEvent(topic: Topic.TaskResultAvailable | Topic.TaskError, taskId: string): Promise<OversightTaskEvent> {
    return eventually(() => this.of<OversightTaskEvent>(topic, taskId)[0], { what: `${topic} of task ${taskId}` });
  }

  deliveriesOf(taskId: string): DeliveryRequestedEvent[] {
    return this.of<DeliveryRequestedEvent>(Topic.DeliveryRequested, taskId);
  }
}

describe('oversight API (gateway + oversight over real Kafka, PostgreSQL, Redis)', () => {
  takesTurnOn('oversight task queue');
  const events = new EventLog();
  let tenant: Tenant;
  let other: Tenant;
  let worker: string;
  let bucketRoot: string;

  beforeAll(async () => {
    [tenant, other, worker] = await Promise.all([newTenant(), newTenant(), newWorker()]);
    bucketRoot = mkdtempSync(join(tmpdir(), 'workline-bucket-'));
    await events.start();
  });

  afterAll(async () => {
    await events.stop();
    rmSync(bucketRoot, { recursive: true, force: true });
  });

  describe('upload grants and signed uploads', () => {
    it("grants an absolute, signed, expiring upload URL for a configuration of the key's workstream", async () => {
      const before = Date.now();
      const g = await grant(tenant);
      expect(g).toEqual({
        media_upload_url: expect.any(String),
        media_key: expect.stringMatching(/^med_/),
        expires_at: expect.any(String),
      });
      const url = new URL(g.media_upload_url);
      expect(`${url.protocol}//${url.host}`).toBe(testStack().gatewayUrl);
      expect(url.pathname).toBe(`/uploads/media/${g.media_key}`);
      expect(url.searchParams.get('signature')).toMatch(/^[0-9a-f]{64}$/);
      // The gateway takes its clock once while answering (between before and after), floored to the second.
      const after = Date.now();
      const expires = new Date(g.expires_at).getTime();
      expect(expires - before).toBeGreaterThan(3500_000);
      expect(expires).toBeLessThanOrEqual(after + 3600_000);
    });

    it('stores the bytes of a PUT with a supported Content-Type', async () => {
      const g = await grant(tenant);
      const bytes = PNG();
      const result = await put(g.media_upload_url, bytes, 'image/png');
      expect(result).toEqual({ status: 200, body: { media_key: g.media_key, content_type: 'image/png', size: bytes.length } });
    });

    it('says X-Content-Type-Options: nosniff on every answer of the media routes', async () => {
      const g = await grant(tenant);
      const answers = await Promise.all([
        fetch(g.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: PNG() }),
        fetch(g.media_upload_url, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: '<html></html>' }),
        fetch(
          g.media_upload_url.replace(/signature=./, (s) => `signature=${s.endsWith('a') ? 'b' : 'a'}`),
          { method: 'PUT', body: 'x' },
        ),
      ]);
      expect(answers.map((answer) => [answer.status, answer.headers.get('x-content-type-options')])).toEqual([
        [200, 'nosniff'],
        [415, 'nosniff'],
        [403, 'nosniff'],
      ]);
    });

    it('415 without a Content-Type or with an unsupported one, and nothing is stored', async () => {
      const g = await grant(tenant);
      const none = await put(g.media_upload_url, Buffer.from('hello'));
      expect(none.status).toBe(415);
      expect(none.body.message).toBe(
        'The Content-Type header is required: send the media type of the file ' +
          '(one of image/jpeg, image/png, application/pdf, video/mp4, text/plain)',
      );
      const wrong = await put(g.media_upload_url, Buffer.from('GIF89a'), 'image/gif');
      expect(wrong.status).toBe(415);
      expect(wrong.body.message).toBe(
        'Content-Type image/gif is not supported: use one of image/jpeg, image/png, application/pdf, video/mp4, text/plain',
      );
      const task = await createTask(tenant, { media_key: g.media_key, configuration_id: tenant.configurationId });
      expect(task.status).toBe(409);
      expect(task.error?.message).toBe(`media ${g.media_key} has not been uploaded: PUT its bytes to the media_upload_url first`);
    });

    it('accepts a Content-Type with parameters and every listed media type', async () => {
      for (const type of ['text/plain; charset=utf-8', 'application/pdf', 'video/mp4', 'image/jpeg']) {
        const g = await grant(tenant);
        const result = await put(g.media_upload_url, Buffer.from('bytes'), type);
        expect({ type, status: result.status }).toEqual({ type, status: 200 });
      }
    });

    it('403 for a tampered, unsigned or expired URL, and nothing is stored', async () => {
      const g = await grant(tenant);
      const url = new URL(g.media_upload_url);
      const signature = url.searchParams.get('signature')!;
      const cases: [string, RegExp][] = [];
      const altered = new URL(url);
      altered.searchParams.set('signature', `${signature[0] === 'a' ? 'b' : 'a'}${signature.slice(1)}`);
      cases.push([altered.toString(), /^This upload URL's signature does not match: the URL was altered or was not issued by Workline$/]);
      const later = new URL(url);
      later.searchParams.set('expires', String(Number(url.searchParams.get('expires')) + 3600));
      cases.push([later.toString(), /signature does not match/]);
      const otherKey = await grant(tenant);
      cases.push([
        `${testStack().gatewayUrl}${new URL(otherKey.media_upload_url).pathname}?${url.searchParams}`,
        /signature does not match/,
      ]);
      cases.push([
        `${url.origin}${url.pathname}`,
        /^This upload URL is not signed: the expires and signature query parameters are required$/,
      ]);
      const expiredAt = new Date(Date.now() - 60_000);
      cases.push([
        `${testStack().gatewayUrl}${signPath(urlSigningKey(secretsKey()), 'PUT', url.pathname, expiredAt)}`,
        /^This upload URL expired at .+Z: ask POST \/v1\/signed-url for a new one$/,
      ]);
      for (const [target, message] of cases) {
        const result = await put(target, PNG(), 'image/png');
        expect({ target, status: result.status }).toEqual({ target, status: 403 });
        expect(result.body.message).toMatch(message);
      }
      const task = await createTask(tenant, { media_key: g.media_key, configuration_id: tenant.configurationId });
      expect(task.status).toBe(409);
    });

    it('404 for a configuration of another workstream or an unknown one; 422 naming a missing field', async () => {
      for (const configurationId of [other.configurationId, 'no-such-configuration']) {
        const result = await apiClient({ apiKey: tenant.key }).POST('/v1/signed-url', { body: { configuration_id: configurationId } });
        expect(result.response.status).toBe(404);
        expect(result.error).toEqual({ message: `configuration ${configurationId} not found` });
      }
      // No configuration_id, which the typed client would not leave out: raw http().
      const missing = await http('POST', '/v1/signed-url', { headers: asKey(tenant.key), body: {} });
      expect(missing.status).toBe(422);
      expect(missing.body).toMatchObject({ errors: [{ field: 'configuration_id' }] });
    });
  });

  describe('tasks and status', () => {
    it('401 without or with a wrong x-api-key on every oversight endpoint', async () => {
      const calls: [string, (client: WorklineClient) => Promise<{ error?: unknown; response: Response }>][] = [
        ['/v1/signed-url', (client) => client.POST('/v1/signed-url', { body: { configuration_id: tenant.configurationId } })],
        ['/v1/tasks', (client) => client.POST('/v1/tasks', { body: { media_key: 'x', configuration_id: tenant.configurationId } })],
        ['/v1/tasks/anything', (client) => client.GET('/v1/tasks/{id}', { params: { path: { id: 'anything' } } })],
      ];
      for (const [path, call] of calls) {
        const none = await call(apiClient());
        expect({ path, status: none.response.status, body: none.error }).toEqual({
          path,
          status: 401,
          body: { message: 'Missing x-api-key header' },
        });
        const wrong = await call(apiClient({ apiKey: 'wlk_wrong' }));
        expect({ path, status: wrong.response.status, body: wrong.error }).toEqual({
          path,
          status: 401,
          body: { message: 'Invalid x-api-key' },
        });
      }
    });

    it('creates a task for uploaded media (201) and shows it QUEUED; another workstream sees 404', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const result = await createTask(tenant, { media_key: mediaKey, configuration_id: tenant.configurationId });
      expect(result.status).toBe(201);
      expect(result.data).toEqual({ task_id: expect.stringMatching(/^tsk_/) });
      const taskId = result.data!.task_id;
      const status = await taskStatus(tenant, taskId);
      expect(status.status).toBe(200);
      expect(status.data).toEqual({
        task_id: taskId,
        state: 'QUEUED',
        media_key: mediaKey,
        configuration_id: tenant.configurationId,
        bucket_id: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      });
      for (const [caller, id] of [
        [other, taskId],
        [tenant, 'tsk_unknown'],
      ] as const) {
        const hidden = await taskStatus(caller, id);
        expect(hidden.status).toBe(404);
        expect(hidden.error).toEqual({ message: `task ${id} not found` });
      }
    });

    it('takes null for the optional bucket_id and callback_url as "not sent" (201, no callback)', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const result = await createTask(tenant, {
        media_key: mediaKey,
        configuration_id: tenant.configurationId,
        bucket_id: null,
        callback_url: null,
      });
      expect({ status: result.status, body: result.data }).toEqual({ status: 201, body: { task_id: expect.stringMatching(/^tsk_/) } });
      expect((await taskStatus(tenant, result.data!.task_id)).data).toMatchObject({ state: 'QUEUED', bucket_id: null });
    });

    it("refuses tasks for media that is unknown, another workstream's or granted for another configuration", async () => {
      const mine = await uploaded(tenant, PNG(), 'image/png');
      const theirs = await uploaded(other, PNG(), 'image/png');
      const unknown = await createTask(tenant, { media_key: 'med_doesnotexist0000000', configuration_id: tenant.configurationId });
      expect(unknown.status).toBe(404);
      expect(unknown.error?.message).toMatch(/^media med_doesnotexist0000000 not found: get a media_key from POST \/v1\/signed-url/);
      const foreign = await createTask(tenant, { media_key: theirs, configuration_id: tenant.configurationId });
      expect(foreign.status).toBe(404);
      const otherConfiguration = await createTask(tenant, { media_key: mine, configuration_id: tenant.extendedConfigurationId });
      expect(otherConfiguration.status).toBe(422);
      expect(otherConfiguration.error).toMatchObject({
        message: `Invalid request: media ${mine} was granted for configuration ${tenant.configurationId}: send the same configuration_id`,
        errors: [{ field: 'configuration_id' }],
      });
      const foreignConfiguration = await createTask(tenant, { media_key: mine, configuration_id: other.configurationId });
      expect(foreignConfiguration.status).toBe(404);
      expect(foreignConfiguration.error).toEqual({ message: `configuration ${other.configurationId} not found` });
    });

    it('422 naming bad fields and bad callback URLs; nothing is created', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      // A required field left out, an unknown field: raw http(), which the typed client would not send.
      const shapes: [Record<string, unknown>, string][] = [
        [{ configuration_id: tenant.configurationId }, 'media_key'],
        [{ media_key: mediaKey }, 'configuration_id'],
        [{ media_key: mediaKey, configuration_id: tenant.configurationId, surprise: 1 }, 'surprise'],
      ];
      for (const [body, field] of shapes) {
        const result = await http<{ errors?: { field: string }[] }>('POST', '/v1/tasks', { headers: asKey(tenant.key), body });
        expect({ field, status: result.status }).toEqual({ field, status: 422 });
        expect(result.body.errors?.map((e) => e.field)).toContain(field);
      }
      const cases: [Schemas['CreateTaskDto'], string, RegExp?][] = [
        [
          { media_key: mediaKey, configuration_id: tenant.configurationId, existing_tags: [{ value: 'cat', confidence_score: 2 }] },
          'existing_tags[0].confidence_score',
        ],
        [
          { media_key: mediaKey, configuration_id: tenant.configurationId, callback_url: 'ftp://example.com/hook' },
          'callback_url',
          /callback_url must use http or https/,
        ],
        [
          { media_key: mediaKey, configuration_id: tenant.configurationId, callback_url: 'not a url' },
          'callback_url',
          /callback_url must be an absolute http\(s\) URL/,
        ],
        [
          { media_key: mediaKey, configuration_id: tenant.configurationId, callback_url: 'http://no-such-host.invalid/hook' },
          'callback_url',
          /does not resolve/,
        ],
      ];
      for (const [body, field, message] of cases) {
        const result = await createTask(tenant, body);
        expect({ field, status: result.status }).toEqual({ field, status: 422 });
        expect(fieldErrors(result)?.map((e) => e.field)).toContain(field);
        if (message) expect(result.error?.message).toMatch(message);
      }
    });
  });

  describe('work API and events', () => {
    let receiverKey: string;

    beforeAll(() => {
      receiverKey = tenant.key;
    });

    it(
      'upload -> task -> a worker completes it -> task.result_available (extended) is requested for delivery, signed ' +
        'with the creating key',
      async () => {
        const bytes = JPEG();
        const mediaKey = await uploaded(tenant, bytes, 'image/jpeg', tenant.extendedConfigurationId);
        const existing = [{ value: 'cat', confidence_score: 0.4 }];
        const clientItems = [{ key: 'batch', value: 'b-17' }];
        const taskId = await created(tenant, {
          media_key: mediaKey,
          configuration_id: tenant.extendedConfigurationId,
          callback_url: 'http://hook-user:hook-pass@127.0.0.1:9/hooks/oversight?x=1',
          existing_tags: existing,
          metadata: clientItems,
        });

        const assignment = await lease(worker, taskId);
        expect(assignment).toEqual({
          assignment_id: expect.stringMatching(/^asgt_/),
          kind: 'task',
          task_id: taskId,
          media_url: expect.stringMatching(
            new RegExp(`^${testStack().gatewayUrl}/media/tasks/${taskId}\\?expires=\\d+&signature=[0-9a-f]{64}$`),
          ),
          media_type: 'image/jpeg',
          existing_tags: existing,
          metadata: clientItems,
          lease_expires_at: expect.any(String),
        });
        expect((await taskStatus(tenant, taskId)).data?.state).toBe('IN_PROGRESS');

        const media = await fetch(assignment.media_url);
        expect(media.status).toBe(200);
        expect(media.headers.get('content-type')).toBe('image/jpeg');
        expect(media.headers.get('x-content-type-options')).toBe('nosniff');
        expect(Buffer.from(await media.arrayBuffer()).equals(bytes)).toBe(true);
        const tamperedMedia = await http(
          'GET',
          assignment.media_url.replace(/signature=./, (s) => `signature=${s.endsWith('a') ? 'b' : 'a'}`),
        );
        expect(tamperedMedia.status).toBe(403);
        expect(tamperedMedia.headers.get('x-content-type-options')).toBe('nosniff');

        const updated = [{ value: 'dog', confidence_score: 0.97 }];
        const workerItems = [{ key: 'reviewer', value: 'w-1' }];
        const done = await completeTask(worker, assignment.assignment_id, { updated_tags: updated, metadata: workerItems });
        // The client's items first, then the worker's.
        const metadata = [...clientItems, ...workerItems];
        expect(done.status).toBe(200);
        expect(done.data).toEqual({ assignment_id: assignment.assignment_id, kind: 'task', task_id: taskId, state: 'COMPLETED' });

        const status = await taskStatus(tenant, taskId);
        expect(status.data).toMatchObject({ state: 'COMPLETED', result: { updated_tags: updated, existing_tags: existing, metadata } });
        expect(status.data).not.toHaveProperty('error');

        const delivery = await events.delivery(taskId);
        expect(delivery).toEqual({
          delivery_id: expect.any(String),
          owner: { account_id: tenant.accountId, workstream_id: tenant.workstreamId },
          subject: { task_id: taskId },
          event_type: 'task.result_available',
          url: 'http://127.0.0.1:9/hooks/oversight?x=1',
          body: expect.any(String),
          signing: 'x-svc-signature',
          sealed_secret: expect.any(String),
          sealed_authorization: expect.any(String),
        });
        const box = new SecretBox(secretsKey());
        expect(box.open(delivery.sealed_secret!)).toBe(receiverKey);
        expect(box.open(delivery.sealed_authorization!)).toBe(`Basic ${Buffer.from('hook-user:hook-pass').toString('base64')}`);

        const event = JSON.parse(delivery.body) as Record<string, unknown>;
        expect(event).toEqual({
          uuid: delivery.delivery_id,
          event_type: 'task.result_available',
          timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
          request_id: taskId,
          task_id: taskId,
          diagnostic: { workstream_id: tenant.workstreamId, configuration_id: tenant.extendedConfigurationId, tool_project_id: 'tp-42' },
          task_details: { state: 'COMPLETED', updated_tags: updated, existing_tags: existing },
          metadata,
        });
        expect(Object.keys(event)).toEqual([
          'uuid',
          'event_type',
          'timestamp',
          'request_id',
          'task_id',
          'diagnostic',
          'task_details',
          'metadata',
        ]);

        // The dispatcher signs the body as it is with the opened key: it verifies with libs/signature and by hand.
        const header = sign(delivery.body, box.open(delivery.sealed_secret!));
        expect(verify(header, delivery.body, receiverKey)).toMatchObject({ ok: true });
        expect(verify(header, delivery.body, other.key)).toMatchObject({ ok: false, reason: 'mismatch' });
        const [t, v1] = header.split(';').map((part) => part.split('=')[1]);
        expect(createHmac('sha256', receiverKey).update(`${t}.${delivery.body}`).digest('hex')).toBe(v1);

        const onTopic = await events.taskEvent(Topic.TaskResultAvailable, taskId);
        expect(onTopic).toEqual({
          account_id: tenant.accountId,
          workstream_id: tenant.workstreamId,
          task_id: taskId,
          state: 'COMPLETED',
          event,
        });
      },
    );

    it('a flag puts the task in ERROR and emits task.error (plain configuration: the base event shape)', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const taskId = await created(tenant, {
        media_key: mediaKey,
        configuration_id: tenant.configurationId,
        callback_url: 'http://127.0.0.1:9/hook',
      });
      const assignment = await lease(worker, taskId);
      const flagged = await flagTask(worker, assignment.assignment_id, 'image is blank');
      expect(flagged.status).toBe(200);
      expect(flagged.data).toMatchObject({ task_id: taskId, state: 'ERROR' });
      const status = await taskStatus(tenant, taskId);
      expect(status.data).toMatchObject({ state: 'ERROR', error: { message: 'flagged by the worker: image is blank' } });
      expect(status.data).not.toHaveProperty('result');

      const delivery = await events.delivery(taskId);
      expect(delivery).toMatchObject({ event_type: 'task.error', url: 'http://127.0.0.1:9/hook', signing: 'x-svc-signature' });
      expect(delivery.sealed_authorization).toBeUndefined();
      expect(new SecretBox(secretsKey()).open(delivery.sealed_secret!)).toBe(tenant.key);
      const event = JSON.parse(delivery.body) as Record<string, unknown>;
      expect(event).toEqual({
        uuid: delivery.delivery_id,
        event_type: 'task.error',
        timestamp: expect.any(String),
        request_id: taskId,
        task_id: taskId,
        diagnostic: { workstream_id: tenant.workstreamId, configuration_id: tenant.configurationId, tool_project_id: null },
      });
      const onTopic = await events.taskEvent(Topic.TaskError, taskId);
      expect(onTopic).toEqual({
        account_id: tenant.accountId,
        workstream_id: tenant.workstreamId,
        task_id: taskId,
        state: 'ERROR',
        error: 'flagged by the worker: image is blank',
        event,
      });
    });

    it('a task without callback_url emits its Kafka event but requests no delivery', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const taskId = await created(tenant, { media_key: mediaKey, configuration_id: tenant.configurationId });
      const assignment = await lease(worker, taskId);
      expect((await completeTask(worker, assignment.assignment_id, { updated_tags: [] })).status).toBe(200);
      const onTopic = await events.taskEvent(Topic.TaskResultAvailable, taskId);
      expect(onTopic.event.task_id).toBe(taskId);
      expect(events.deliveriesOf(taskId)).toEqual([]);
    });

    it('refuses bad complete/flag bodies, other workers and closed assignments, changing nothing', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const taskId = await created(tenant, { media_key: mediaKey, configuration_id: tenant.configurationId });
      const assignment = await lease(worker, taskId);
      // Bodies of the wrong shape on purpose: raw http(), which the typed client would not send.
      const bad: [string, unknown, string][] = [
        ['complete', {}, 'updated_tags'],
        ['complete', { updated_tags: [{ value: 'x' }] }, 'updated_tags[0].confidence_score'],
        ['complete', { updated_tags: [], metadata: [{ key: 'k' }] }, 'metadata[0].value'],
        ['complete', { updated_tags: [], extra: true }, 'extra'],
        ['flag', {}, 'reason'],
      ];
      for (const [action, body, field] of bad) {
        const result = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/${action}`, {
          headers: { authorization: `Bearer ${worker}` },
          body,
        });
        expect({ action, field, status: result.status }).toEqual({ action, field, status: 422 });
        expect(result.body).toMatchObject({ errors: expect.arrayContaining([expect.objectContaining({ field })]) });
      }
      const stranger = await newWorker();
      const notTheirs = await completeTask(stranger, assignment.assignment_id, { updated_tags: [] });
      expect(notTheirs.status).toBe(404);
      expect(notTheirs.error).toEqual({ message: `assignment ${assignment.assignment_id} not found` });
      expect((await taskStatus(tenant, taskId)).data?.state).toBe('IN_PROGRESS');

      expect((await completeTask(worker, assignment.assignment_id, { updated_tags: [] })).status).toBe(200);
      const again = await flagTask(worker, assignment.assignment_id, 'late');
      expect(again.status).toBe(409);
      expect(again.error).toEqual({ message: `assignment ${assignment.assignment_id} is already closed: its task is COMPLETED` });
      expect((await taskStatus(tenant, taskId)).data?.state).toBe('COMPLETED');
      const unknown = await completeTask(worker, 'asgt_nope', { updated_tags: [] });
      expect(unknown.status).toBe(404);
    });

    it('two workers asking at once never lease the same task', async () => {
      const [a, b] = await Promise.all([newWorker(), newWorker()]);
      const first = await created(tenant, {
        media_key: await uploaded(tenant, PNG(), 'image/png'),
        configuration_id: tenant.configurationId,
      });
      const second = await created(tenant, {
        media_key: await uploaded(tenant, PNG(), 'image/png'),
        configuration_id: tenant.configurationId,
      });
      // Clear anything older, so that the two tasks are at the head of the queue.
      await lease(worker, first).then((held) => flagTask(worker, held.assignment_id, 'requeue for the race'));
      const third = await created(tenant, {
        media_key: await uploaded(tenant, PNG(), 'image/png'),
        configuration_id: tenant.configurationId,
      });
      const [x, y] = await Promise.all([nextTask(a), nextTask(b)]);
      expect([x.status, y.status]).toEqual([200, 200]);
      const [xTask, yTask] = [x.data, y.data].map((next) => (next?.kind === 'task' ? next : undefined));
      expect(xTask?.task_id).not.toBe(yTask?.task_id);
      expect([xTask?.task_id, yTask?.task_id].sort()).toEqual([second, third].sort());
      await Promise.all([
        completeTask(a, xTask!.assignment_id, { updated_tags: [] }),
        completeTask(b, yTask!.assignment_id, { updated_tags: [] }),
      ]);
    });
  });

  describe('project-level keys (valid for every workstream of their account)', () => {
    async function projectKey(accountId: string): Promise<string> {
      const key = admin.POST('/admin/v1/accounts/{account_id}/api-keys', { params: { path: { account_id: accountId } }, body: {} });
      return (await ok(key, 201)).key;
    }

    it('uses the configuration to find the workstream; tasks are signed with the project key and visible to both keys', async () => {
      const key = await projectKey(tenant.accountId);
      const asProject: Tenant = { ...tenant, key };
      const mediaKey = await uploaded(asProject, PNG(), 'image/png');
      const taskId = await created(asProject, {
        media_key: mediaKey,
        configuration_id: tenant.configurationId,
        callback_url: 'http://127.0.0.1:9/p',
      });
      expect((await taskStatus(asProject, taskId)).data).toMatchObject({
        task_id: taskId,
        state: 'QUEUED',
        configuration_id: tenant.configurationId,
      });
      expect((await taskStatus(tenant, taskId)).status).toBe(200);
      expect((await taskStatus(other, taskId)).status).toBe(404);
      const assignment = await lease(worker, taskId);
      expect((await completeTask(worker, assignment.assignment_id, { updated_tags: [] })).status).toBe(200);
      const delivery = await events.delivery(taskId);
      expect(new SecretBox(secretsKey()).open(delivery.sealed_secret!)).toBe(key);
      expect(delivery.owner).toEqual({ account_id: tenant.accountId, workstream_id: tenant.workstreamId });
    });

    it("another account's configuration and tasks stay 404", async () => {
      const asProject: Tenant = { ...tenant, key: await projectKey(tenant.accountId) };
      const grantOther = await apiClient({ apiKey: asProject.key }).POST('/v1/signed-url', {
        body: { configuration_id: other.configurationId },
      });
      expect(grantOther.response.status).toBe(404);
      expect(grantOther.error).toEqual({ message: `configuration ${other.configurationId} not found` });
      const task = await createTask(asProject, {
        media_key: await uploaded(other, PNG(), 'image/png'),
        configuration_id: other.configurationId,
      });
      expect(task.status).toBe(404);
      const otherTask = await created(other, {
        media_key: await uploaded(other, PNG(), 'image/png'),
        configuration_id: other.configurationId,
      });
      expect((await taskStatus(asProject, otherTask)).status).toBe(404);
    });
  });

  describe('mounted buckets', () => {
    let bucketId: string;

    beforeAll(async () => {
      writeFileSync(join(bucketRoot, 'photo.png'), PNG());
      writeFileSync(join(bucketRoot, 'clip.mp4'), MP4());
      writeFileSync(join(bucketRoot, 'notes.txt'), 'just text');
      writeFileSync(join(bucketRoot, 'gone.jpg'), JPEG());
      ({ id: bucketId } = await ok(registerBucket(tenant.workstreamId, { driver: 'fs', root: bucketRoot }), 201));
    });

    it('registers a bucket (201) and refuses bad registrations', async () => {
      const bucket = await ok(registerBucket(tenant.workstreamId, { driver: 'fs', root: bucketRoot }), 201);
      expect(bucket).toEqual({
        id: expect.stringMatching(/^bkt_/),
        workstream_id: tenant.workstreamId,
        driver: 'fs',
        root: bucketRoot,
        created_at: expect.any(String),
      });
      // A driver outside the documented enum: raw http(), which the typed client would not send.
      const ftp = await http<{ message: string }>('POST', `/admin/v1/workstreams/${tenant.workstreamId}/buckets`, {
        headers: adminHeaders(),
        body: { driver: 'ftp', root: bucketRoot },
      });
      expect(ftp.status).toBe(422);
      expect(ftp.body.message).toMatch(/driver must be one of: fs/);
      const cases: [string, Schemas['CreateBucketDto'], number, RegExp][] = [
        [tenant.workstreamId, { driver: 'fs', root: 'relative/dir' }, 422, /root must be an absolute path/],
        [tenant.workstreamId, { driver: 'fs', root: join(bucketRoot, 'missing') }, 422, /is not a directory/],
        ['no-such-ws', { driver: 'fs', root: bucketRoot }, 404, /workstream no-such-ws not found/],
      ];
      for (const [workstreamId, body, status, message] of cases) {
        const result = await registerBucket(workstreamId, body);
        expect({ workstreamId, body, status: result.status }).toEqual({ workstreamId, body, status });
        expect(result.error?.message).toMatch(message);
      }
      const noToken = await registerBucket(tenant.workstreamId, { driver: 'fs', root: bucketRoot }, apiClient());
      expect(noToken.status).toBe(401);
    });

    it('takes an image from the bucket, and a worker gets its bytes', async () => {
      const { taskId, assignment, bytes } = await takeBucketPng(tenant, worker, { media_key: 'photo.png', bucket_id: bucketId });
      expect(bytes).toHaveLength(208);
      const expired = await http(
        'GET',
        `${testStack().gatewayUrl}${signPath(urlSigningKey(secretsKey()), 'GET', `/media/tasks/${taskId}`, new Date(Date.now() - 1000))}`,
      );
      expect(expired.status).toBe(403);
      expect(expired.body).toEqual({ message: expect.stringMatching(/^This media URL expired at .+Z$/) });
      // A download URL cannot be turned into an upload URL: method and path are signed.
      const asUpload = await put(assignment.media_url.replace('/media/tasks/', '/uploads/media/'), PNG(), 'image/png');
      expect(asUpload.status).toBe(403);
      expect((await completeTask(worker, assignment.assignment_id, { updated_tags: [{ value: 'x', confidence_score: 1 }] })).status).toBe(
        200,
      );
    });

    it('the bucket rule: a video (or anything but an image) in a bucket is 422; unknown objects and buckets 404', async () => {
      await expectBucketRule(tenant, bucketId, '../../etc/passwd');
      for (const [caller, id] of [
        [tenant, 'bkt_unknown'],
        [other, bucketId],
      ] as const) {
        const result = await createTask(caller, { media_key: 'photo.png', bucket_id: id, configuration_id: caller.configurationId });
        expect(result.status).toBe(404);
        expect(result.error?.message).toBe(`bucket ${id} not found`);
      }
    });

    it('media that can no longer be read fails the task with task.error when it is leased', async () => {
      const taskId = await created(tenant, {
        media_key: 'gone.jpg',
        bucket_id: bucketId,
        configuration_id: tenant.configurationId,
        callback_url: 'http://127.0.0.1:9/h',
      });
      rmSync(join(bucketRoot, 'gone.jpg'));
      await drainQueue(worker);
      const status = await taskStatus(tenant, taskId);
      expect(status.data).toMatchObject({
        state: 'ERROR',
        error: { message: `media gone.jpg can no longer be read from bucket ${bucketId}` },
      });
      const delivery = await events.delivery(taskId);
      expect(delivery.event_type).toBe('task.error');
      expect((await events.taskEvent(Topic.TaskError, taskId)).error).toBe(`media gone.jpg can no longer be read from bucket ${bucketId}`);
    });
  });

  describe('mounted buckets: files swapped for symbolic links after the task was created', () => {
    let bucketId: string;
    let hostDirectory: string;
    /** A file of the host outside every bucket, that starts like a PNG: served if a link were followed. */
    let hostFile: string;
    const HOST_SECRET = `host-secret-${randomBytes(8).toString('hex')}`;

    beforeAll(async () => {
      hostDirectory = mkdtempSync(join(tmpdir(), 'workline-host-'));
      hostFile = join(hostDirectory, 'private.png');
      writeFileSync(hostFile, Buffer.concat([PNG(), Buffer.from(HOST_SECRET)]));
      ({ id: bucketId } = await ok(registerBucket(tenant.workstreamId, { driver: 'fs', root: bucketRoot }), 201));
    });

    afterAll(() => rmSync(hostDirectory, { recursive: true, force: true }));

    /** A task on `mediaKey` of this describe's bucket. */
    const bucketTask = (mediaKey: string) =>
      created(tenant, { media_key: mediaKey, bucket_id: bucketId, configuration_id: tenant.configurationId });

    const swapForLink = (key: string) => {
      unlinkSync(join(bucketRoot, key));
      symlinkSync(hostFile, join(bucketRoot, key));
    };

    it('a link put in after the worker got its media URL is not served (404), the host file stays unread', async () => {
      writeFileSync(join(bucketRoot, 'swapped-late.png'), PNG());
      const taskId = await bucketTask('swapped-late.png');
      const assignment = await lease(worker, taskId);
      swapForLink('swapped-late.png');
      const media = await fetch(assignment.media_url);
      const body = await media.text();
      expect(media.status).toBe(404);
      expect(JSON.parse(body)).toEqual({ message: `the media of task ${taskId} can no longer be read` });
      expect(body).not.toContain(HOST_SECRET);
      expect((await flagTask(worker, assignment.assignment_id, 'media gone')).status).toBe(200);
    });

    it('a file replaced by a non-image after the worker got its media URL is not served (404), nor its bytes', async () => {
      writeFileSync(join(bucketRoot, 'retyped-late.png'), PNG());
      const taskId = await bucketTask('retyped-late.png');
      const assignment = await lease(worker, taskId);
      // A page a browser would run if it guessed the type from the bytes.
      writeFileSync(join(bucketRoot, 'retyped-late.png'), `<html><script>alert('${HOST_SECRET}')</script></html>`);
      const media = await fetch(assignment.media_url);
      const body = await media.text();
      expect(media.status).toBe(404);
      expect(media.headers.get('x-content-type-options')).toBe('nosniff');
      expect(JSON.parse(body)).toEqual({ message: `the media of task ${taskId} is no longer the image/png it was created with` });
      expect(body).not.toContain(HOST_SECRET);
      // Another image is refused too: the Content-Type sent is the task's, and would not match.
      writeFileSync(join(bucketRoot, 'retyped-late.png'), JPEG());
      expect((await fetch(assignment.media_url)).status).toBe(404);
      writeFileSync(join(bucketRoot, 'retyped-late.png'), PNG());
      expect((await fetch(assignment.media_url)).status).toBe(200);
      expect((await flagTask(worker, assignment.assignment_id, 'media retyped')).status).toBe(200);
    });

    it('a file replaced by a non-image before the task is leased fails the task (task.error)', async () => {
      writeFileSync(join(bucketRoot, 'retyped-early.png'), PNG());
      const taskId = await bucketTask('retyped-early.png');
      writeFileSync(join(bucketRoot, 'retyped-early.png'), 'just text now');
      await drainQueue(worker);
      const reason = `media retyped-early.png in bucket ${bucketId} is no longer the image/png the task was created with`;
      expect((await taskStatus(tenant, taskId)).data).toMatchObject({ state: 'ERROR', error: { message: reason } });
      expect((await events.taskEvent(Topic.TaskError, taskId)).error).toBe(reason);
    });

    it('a link put in before the task is leased fails the task (task.error); a link is refused at creation (422)', async () => {
      writeFileSync(join(bucketRoot, 'swapped-early.png'), PNG());
      const taskId = await bucketTask('swapped-early.png');
      swapForLink('swapped-early.png');
      await drainQueue(worker);
      const status = await taskStatus(tenant, taskId);
      expect(status.data).toMatchObject({
        state: 'ERROR',
        error: { message: expect.stringMatching(/^media swapped-early\.png could not be read: .*symbolic link/) },
      });
      const refused = await createTask(tenant, {
        media_key: 'swapped-early.png',
        bucket_id: bucketId,
        configuration_id: tenant.configurationId,
      });
      expect(refused.status).toBe(422);
      expect(refused.error).toMatchObject({
        message: 'Invalid request: object key "swapped-early.png" is a symbolic link: mounted buckets serve regular files only',
        errors: [{ field: 'media_key' }],
      });
    });
  });

  describe('mounted S3 buckets (an S3-compatible server on loopback: s3rver)', () => {
    const secret = `s3-secret-${randomBytes(12).toString('hex')}`;
    const receiver = new LoopbackReceiver();
    let server: Awaited<ReturnType<typeof startS3Server>>;
    let s3: S3Settings;
    let bucketId: string;
    // s3rver knows the access key id S3RVER; it does not check signatures, so any secret signs.
    const register = registerBucket;
    const s3Body = (change: Partial<Schemas['CreateBucketDto']> = {}): Schemas['CreateBucketDto'] => ({
      driver: 's3',
      endpoint: s3.endpoint,
      region: 'us-east-1',
      bucket: 'client-photos',
      prefix: 'tenant-a/',
      access_key_id: 'S3RVER',
      secret_access_key: secret,
      ...change,
    });
    const putObject = (key: string, bytes: Buffer) =>
      new S3BlobStore(s3).put(key, Readable.from([bytes]), { contentType: 'application/octet-stream' });

    beforeAll(async () => {
      server = await startS3Server('client-photos', secret);
      s3 = server.settings;
      await receiver.start();
      bucketId = (await ok(register(tenant.workstreamId, s3Body()), 201)).id;
    });

    afterAll(async () => {
      await receiver.stop();
      await server.close();
    });

    it('registers an s3 bucket (201): its settings are shown, its secret access key never echoed', async () => {
      const created = await register(tenant.workstreamId, s3Body({ prefix: undefined, force_path_style: true }));
      expect(created.status).toBe(201);
      expect(created.data).toEqual({
        id: expect.stringMatching(/^bkt_/),
        workstream_id: tenant.workstreamId,
        driver: 's3',
        endpoint: s3.endpoint,
        region: 'us-east-1',
        bucket: 'client-photos',
        prefix: '',
        access_key_id: 'S3RVER',
        force_path_style: true,
        created_at: expect.any(String),
      });
      expect(JSON.stringify(created.data)).not.toContain(secret);
    });

    it('refuses bad s3 settings with a 422 naming the field, and an unknown workstream with 404; never echoing the secret', async () => {
      const closedPort = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });
      // force_path_style of the wrong type: raw http(), which the typed client would not send.
      const notBoolean = await http<{ message: string; errors?: { field: string }[] }>(
        'POST',
        `/admin/v1/workstreams/${tenant.workstreamId}/buckets`,
        { headers: adminHeaders(), body: { ...s3Body(), force_path_style: 'yes' } },
      );
      expect(notBoolean.status).toBe(422);
      expect(notBoolean.body.message).toMatch(/force_path_style must be true or false/);
      expect(notBoolean.body.errors?.map((e) => e.field)).toEqual(['force_path_style']);
      expect(notBoolean.text).not.toContain(secret);
      const cases: [Partial<Schemas['CreateBucketDto']>, string, RegExp][] = [
        [{ endpoint: undefined }, 'endpoint', /endpoint is required/],
        [{ endpoint: 'ftp://127.0.0.1/x' }, 'endpoint', /endpoint must be an http\(s\) URL/],
        [{ region: 'US East' }, 'region', /region must be a region name/],
        [{ bucket: 'Bad_Bucket' }, 'bucket', /bucket must be an S3 bucket name/],
        [{ bucket: undefined }, 'bucket', /bucket is required/],
        [{ prefix: '/abs/' }, 'prefix', /prefix must not start with a slash/],
        [{ access_key_id: '' }, 'access_key_id', /access_key_id must be a non-empty string/],
        [{ secret_access_key: undefined }, 'secret_access_key', /secret_access_key is required/],
        // Well-formed settings that do not open the bucket: checked against the S3 service itself.
        [{ bucket: 'no-such-bucket' }, 'bucket', /bucket no-such-bucket does not exist at http:\/\/127\.0\.0\.1:\d+/],
        [{ access_key_id: 'NOBODY' }, 'access_key_id', /the credentials were refused: the S3 service answered 403 \(InvalidAccessKeyId\)/],
        [
          { endpoint: `http://127.0.0.1:${closedPort}` },
          'endpoint',
          /endpoint http:\/\/127\.0\.0\.1:\d+ could not be reached \(ECONNREFUSED\)/,
        ],
      ];
      for (const [change, field, message] of cases) {
        const result = await register(tenant.workstreamId, s3Body(change));
        expect({ change, status: result.status }).toEqual({ change, status: 422 });
        expect(result.error?.message).toMatch(message);
        expect(fieldErrors(result)?.map((e) => e.field)).toEqual([field]);
        expect(JSON.stringify(result.error)).not.toContain(secret);
      }
      const unknown = await register('no-such-ws', s3Body());
      expect(unknown.status).toBe(404);
      expect(unknown.error?.message).toMatch(/workstream no-such-ws not found/);
      // Nor does any app's log carry it (the logs of this test run).
      const logs = [...stackLogs().values()];
      expect(logs.join('').length).toBeGreaterThan(0);
      expect(logs.some((log) => log.includes(secret))).toBe(false);
    });

    it('an image in the bucket -> task -> a worker streams it from S3 and completes it -> a signed webhook arrives', async () => {
      const bytes = PNG();
      await putObject('tenant-a/shots/cat.png', bytes);
      const {
        taskId,
        assignment,
        bytes: streamed,
      } = await takeBucketPng(tenant, worker, { media_key: 'shots/cat.png', bucket_id: bucketId, callback_url: receiver.url('/s3-done') });
      expect(streamed.equals(bytes)).toBe(true);

      const done = await completeTask(worker, assignment.assignment_id, { updated_tags: [{ value: 'cat', confidence_score: 0.9 }] });
      expect(done.status).toBe(200);
      const request = await eventually(() => receiver.on('/s3-done')[0], { what: 'the webhook of the s3 task' });
      const header = String(request.headers['x-svc-signature']);
      expect(verify(header, request.rawBody.toString('utf8'), tenant.key)).toMatchObject({ ok: true });
      const [t, v1] = header.split(';').map((part) => part.split('=')[1]);
      expect(
        createHmac('sha256', tenant.key)
          .update(`${t}.${request.rawBody.toString('utf8')}`)
          .digest('hex'),
      ).toBe(v1);
      expect(JSON.parse(request.rawBody.toString('utf8'))).toMatchObject({ event_type: 'task.result_available', task_id: taskId });
      expect((await taskStatus(tenant, taskId)).data).toMatchObject({
        state: 'COMPLETED',
        result: { updated_tags: [{ value: 'cat', confidence_score: 0.9 }] },
      });
    });

    it('the bucket rule on S3: a video is 422, text is 422, a missing object 404, a key above the prefix 422', async () => {
      await putObject('tenant-a/clip.mp4', MP4());
      await putObject('tenant-a/notes.txt', Buffer.from('just text'));
      await putObject('outside.png', PNG());
      // outside.png exists, but above the bucket's prefix: out of reach.
      await expectBucketRule(tenant, bucketId, '../outside.png');
      const otherWorkstream = await createTask(other, {
        media_key: 'shots/cat.png',
        bucket_id: bucketId,
        configuration_id: other.configurationId,
      });
      expect(otherWorkstream.status).toBe(404);
    });

    it('an object replaced by a non-image after the worker got its media URL is not served (404)', async () => {
      await putObject('tenant-a/retyped.png', PNG());
      const taskId = await created(tenant, { media_key: 'retyped.png', bucket_id: bucketId, configuration_id: tenant.configurationId });
      const assignment = await lease(worker, taskId);
      await putObject('tenant-a/retyped.png', Buffer.from('<html>now a page</html>'));
      const media = await fetch(assignment.media_url);
      const body = await media.text();
      expect(media.status).toBe(404);
      expect(media.headers.get('x-content-type-options')).toBe('nosniff');
      expect(JSON.parse(body)).toEqual({ message: `the media of task ${taskId} is no longer the image/png it was created with` });
      expect((await flagTask(worker, assignment.assignment_id, 'media retyped')).status).toBe(200);
    });

    it('an object deleted before it is leased fails the task with task.error', async () => {
      await putObject('tenant-a/gone.jpg', JPEG());
      const taskId = await created(tenant, { media_key: 'gone.jpg', bucket_id: bucketId, configuration_id: tenant.configurationId });
      await new S3BlobStore(s3).delete('tenant-a/gone.jpg');
      await drainQueue(worker);
      expect((await taskStatus(tenant, taskId)).data).toMatchObject({
        state: 'ERROR',
        error: { message: `media gone.jpg can no longer be read from bucket ${bucketId}` },
      });
      expect((await events.taskEvent(Topic.TaskError, taskId)).error).toBe(`media gone.jpg can no longer be read from bucket ${bucketId}`);
    });
  });

  describe('Idempotency-Key on POST /v1/tasks (safe retries)', () => {
    const receiver = new LoopbackReceiver();
    /** Tasks of a workstream on one media key, as the admin API lists them (every page). */
    const tasksOf = async (workstreamId: string, mediaKey: string) => {
      let count = 0;
      let cursor: string | undefined;
      do {
        const page = await ok(
          admin.GET('/admin/v1/tasks', { params: { query: { workstream_id: workstreamId, limit: 100, cursor } } }),
          200,
        );
        count += page.tasks.filter((task) => task.media_key === mediaKey).length;
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      return count;
    };
    /** What the workstream's quota has counted today, as support reads it. */
    const todaysQuota = async (workstreamId: string) =>
      (await ok(admin.GET('/admin/v1/workstreams/{workstream_id}/task-quota', { params: { path: { workstream_id: workstreamId } } }), 200))
        .day.used;

    beforeAll(async () => {
      await receiver.start();
    });

    afterAll(async () => {
      await receiver.stop();
    });

    it(
      'a retry with the same key and body answers the same task (Idempotent-Replayed), creates nothing, and the ' +
        'webhook is delivered once',
      async () => {
        const key = idempotencyKey();
        const mediaKey = await uploaded(tenant, PNG(), 'image/png');
        const body = {
          media_key: mediaKey,
          configuration_id: tenant.configurationId,
          callback_url: receiver.url('/idempotent-task'),
          existing_tags: [{ value: 'cat', confidence_score: 0.5 }],
        };
        const first = await createTask(tenant, body, undefined, withKey(key));
        expect(first.status).toBe(201);
        expect(first.response.headers.get('idempotent-replayed')).toBeNull();
        const taskId = first.data!.task_id;
        // The same request, its keys in another order: the same answer, marked as a replay.
        const reordered = {
          existing_tags: [{ confidence_score: 0.5, value: 'cat' }],
          callback_url: body.callback_url,
          configuration_id: body.configuration_id,
          media_key: mediaKey,
        };
        const retry = await createTask(tenant, reordered, undefined, withKey(key));
        expect(retry.status).toBe(201);
        expect(retry.data).toEqual({ task_id: taskId });
        expect(retry.response.headers.get('idempotent-replayed')).toBe('true');
        expect(await tasksOf(tenant.workstreamId, mediaKey)).toBe(1);

        const assignment = await lease(worker, taskId);
        expect(
          (await completeTask(worker, assignment.assignment_id, { updated_tags: [{ value: 'dog', confidence_score: 0.9 }] })).status,
        ).toBe(200);
        // A retry after completion still answers the task, and requests no second webhook.
        const late = await createTask(tenant, body, undefined, withKey(key));
        expect({ status: late.status, body: late.data, replayed: late.response.headers.get('idempotent-replayed') }).toEqual({
          status: 201,
          body: { task_id: taskId },
          replayed: 'true',
        });
        const deliveries = apiClient({ apiKey: tenant.key });
        await eventually(
          async () =>
            (await ok(deliveries.GET('/v1/deliveries', { params: { query: { task_id: taskId } } }), 200)).deliveries
              .map((d) => d.status)
              .join() === 'delivered',
          { what: 'the one delivery of the task to be delivered' },
        );
        expect(receiver.on('/idempotent-task').map((request) => JSON.parse(request.rawBody.toString('utf8')).task_id)).toEqual([taskId]);
        expect(events.deliveriesOf(taskId)).toHaveLength(1);
        expect(await tasksOf(tenant.workstreamId, mediaKey)).toBe(1);
      },
    );

    it('the same key with another body is a 422 naming the header; nothing is created or changed; keys are per workstream', async () => {
      const key = idempotencyKey();
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const first = await createTask(tenant, { media_key: mediaKey, configuration_id: tenant.configurationId }, undefined, withKey(key));
      expect(first.status).toBe(201);
      const otherMedia = await uploaded(tenant, PNG(), 'image/png');
      const message =
        `Idempotency-Key "${key}" was already used with another request: send the same request to get its ` +
        `answer again, or a new key for a new request`;
      const changed = await createTask(
        tenant,
        { media_key: otherMedia, configuration_id: tenant.configurationId },
        undefined,
        withKey(key),
      );
      expect({ status: changed.status, body: changed.error }).toEqual({
        status: 422,
        body: { message: `Invalid request: ${message}`, errors: [{ field: 'Idempotency-Key', message }] },
      });
      const tagged = await createTask(
        tenant,
        { media_key: mediaKey, configuration_id: tenant.configurationId, existing_tags: [{ value: 'x', confidence_score: 1 }] },
        undefined,
        withKey(key),
      );
      expect(tagged.status).toBe(422);
      expect(await tasksOf(tenant.workstreamId, otherMedia)).toBe(0);
      expect((await taskStatus(tenant, first.data!.task_id)).data).toMatchObject({ state: 'QUEUED', media_key: mediaKey });
      expect((await taskStatus(tenant, first.data!.task_id)).data).not.toHaveProperty('result');
      // Another workstream's key space is its own.
      const theirs = await createTask(
        other,
        { media_key: await uploaded(other, PNG(), 'image/png'), configuration_id: other.configurationId },
        undefined,
        withKey(key),
      );
      expect(theirs.status).toBe(201);
      expect(theirs.data?.task_id).not.toBe(first.data!.task_id);
      expect(theirs.response.headers.get('idempotent-replayed')).toBeNull();
    });

    it('a malformed Idempotency-Key is a 422 naming the header, and nothing is created', async () => {
      const mediaKey = await uploaded(tenant, PNG(), 'image/png');
      const message = 'Idempotency-Key header must be 1 to 255 printable ASCII characters';
      for (const bad of ['', 'x'.repeat(256), 'cl\u00e9']) {
        const result = await createTask(tenant, { media_key: mediaKey, configuration_id: tenant.configurationId }, undefined, withKey(bad));
        expect({ status: result.status, body: result.error }).toEqual({
          status: 422,
          body: { message: `Invalid request: ${message}`, errors: [{ field: 'Idempotency-Key', message }] },
        });
      }
      expect(await tasksOf(tenant.workstreamId, mediaKey)).toBe(0);
      const longest = await createTask(
        tenant,
        { media_key: mediaKey, configuration_id: tenant.configurationId },
        undefined,
        withKey(`${'k'.repeat(127)} ${'~'.repeat(127)}`),
      );
      expect(longest.status).toBe(201);
    });

    it('five requests at once with one key create one task, and the quota counts it once', async () => {
      const fresh = await newTenant();
      const key = idempotencyKey();
      const mediaKey = await uploaded(fresh, PNG(), 'image/png');
      const body = { media_key: mediaKey, configuration_id: fresh.configurationId };
      const results = await Promise.all(Array.from({ length: 5 }, () => createTask(fresh, body, undefined, withKey(key))));
      expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(results.map((result) => result.data?.task_id)).size).toBe(1);
      expect(results.filter((result) => result.response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(await tasksOf(fresh.workstreamId, mediaKey)).toBe(1);
      expect(await todaysQuota(fresh.workstreamId)).toBe(1);
    });
  });

  describe('limits (a second gateway with small limits)', () => {
    let gateway: AppInstance;
    let base: string;
    /** Creates a task of a new image of `tenant` through the gateway with small limits. */
    const createImageTask = async (tenant: Tenant, headers?: Record<string, string>) =>
      createTask(
        tenant,
        { media_key: await uploaded(tenant, PNG(), 'image/png'), configuration_id: tenant.configurationId },
        base,
        headers,
      );
    /** When the UTC day ends, and with it the daily quota's window. */
    const endOfDay = () => new Date(Date.parse(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`) + 24 * 3600 * 1000).toISOString();

    beforeAll(async () => {
      const port = await freePort();
      base = `http://127.0.0.1:${port}`;
      gateway = startAppInstance(
        'gateway',
        { PORT: String(port), MEDIA_MAX_BYTES: '1024', TASK_QUOTA_PER_DAY: '2', TASK_QUOTA_SYNC_SECONDS: '1' },
        `gateway-oversight-limits-${process.pid}`,
      );
      await eventually(
        async () =>
          (
            await apiClient({}, base)
              .GET('/health')
              .catch(() => undefined)
          )?.response.status === 200,
        {
          what: 'the second gateway',
          timeoutMs: 90_000,
        },
      );
    });

    afterAll(async () => {
      await gateway.stop();
    });

    it('413 over MEDIA_MAX_BYTES, whether Content-Length announces it or not; nothing is stored', async () => {
      const g = await grant(tenant, tenant.configurationId, base);
      const declared = await put(g.media_upload_url, Buffer.alloc(1025, 1), 'text/plain');
      expect(declared).toEqual({ status: 413, body: { message: 'The media is larger than the limit of 1024 bytes' } });
      const streamed = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = httpRequest(
          g.media_upload_url,
          { method: 'PUT', headers: { 'content-type': 'text/plain', 'transfer-encoding': 'chunked' } },
          (res) => {
            let body = '';
            res.on('data', (chunk: Buffer) => (body += chunk.toString()));
            res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
          },
        );
        req.on('error', reject);
        for (let i = 0; i < 8; i++) req.write(Buffer.alloc(512, 2));
        req.end();
      });
      expect(streamed.status).toBe(413);
      expect(JSON.parse(streamed.body)).toEqual({ message: 'The media is larger than the limit of 1024 bytes' });
      const task = await createTask(tenant, { media_key: g.media_key, configuration_id: tenant.configurationId });
      expect(task.status).toBe(409);
      expect((await put(g.media_upload_url, Buffer.alloc(1024, 1), 'text/plain')).status).toBe(200);
    });

    it('429 with Retry-After past the daily task quota; refused creations do not count; other workstreams are not affected', async () => {
      const fresh = await newTenant();
      const refused = await createTask(fresh, { media_key: 'med_unknown000000000000', configuration_id: fresh.configurationId }, base);
      expect(refused.status).toBe(404);
      for (let i = 0; i < 2; i++) expect((await createImageTask(fresh)).status).toBe(201);
      const over = await createImageTask(fresh);
      expect(over.status).toBe(429);
      const midnight = endOfDay();
      expect(over.error).toEqual({
        message:
          `Task quota exceeded: this workstream may create 2 tasks per day; ` + `retry after ${midnight} or ask support to raise the quota`,
      });
      const retryAfter = Number(over.response.headers.get('retry-after'));
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(24 * 3600);
      const neighbour = await newTenant();
      const otherWorkstream = await createImageTask(neighbour);
      expect(otherWorkstream.status).toBe(201);
    });

    it('support raises a quota: in force on every gateway once answered, raised again, back to the default with null', async () => {
      const fresh = await newTenant();
      const create = async () => createImageTask(fresh);
      expect([(await create()).status, (await create()).status, (await create()).status]).toEqual([201, 201, 429]);
      const quota = { params: { path: { workstream_id: fresh.workstreamId } } };
      const midnight = endOfDay();

      // Set through the stack's gateway; the limits gateway (a default of 2 a day) holds it at once.
      const raised = await admin.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { ...quota, body: { day: 4, month: null } });
      expect(raised.response.status).toBe(200);
      expect(raised.data).toEqual({
        workstream_id: fresh.workstreamId,
        day: { limit: 4, default_limit: 10_000, custom: true, used: 2, resets_at: midnight },
        week: { limit: 50_000, default_limit: 50_000, custom: false, used: 2, resets_at: expect.any(String) },
        month: { limit: 200_000, default_limit: 200_000, custom: false, used: 2, resets_at: expect.any(String) },
      });
      expect([(await create()).status, (await create()).status]).toEqual([201, 201]);
      const over = await create();
      expect([over.status, over.error]).toEqual([
        429,
        {
          message:
            `Task quota exceeded: this workstream may create 4 tasks per day; retry after ${midnight} or ask ` +
            `support to raise the quota`,
        },
      ]);
      const read = await adminClient(base).GET('/admin/v1/workstreams/{workstream_id}/task-quota', quota);
      expect([read.response.status, read.data?.day]).toEqual([
        200,
        { limit: 4, default_limit: 2, custom: true, used: 4, resets_at: midnight },
      ]);

      // Raised again, on the other gateway this time. (Redis losing its copy of the limits, and the gateways
      // writing it back from PostgreSQL, is proven beside the quota: libs/task-quota/src/task-quota.integration-spec.ts.)
      const again = await adminClient(base).PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { ...quota, body: { day: 5 } });
      expect(again.response.status).toBe(200);
      expect((await create()).status).toBe(201);

      // null (or left out) is the default again: 5 used of 2.
      const lowered = await admin.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { ...quota, body: {} });
      expect(lowered.data?.day).toEqual({ limit: 10_000, default_limit: 10_000, custom: false, used: 5, resets_at: midnight });
      expect((await create()).status).toBe(429);
    });

    it('refuses bad task quotas with the field named, unknown workstreams with 404, and callers without the admin token', async () => {
      const fresh = await newTenant();
      const quota = (workstream_id = fresh.workstreamId) => ({ params: { path: { workstream_id } } });
      const put = (body: Schemas['SetTaskQuotaDto'], client = admin) =>
        client.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { ...quota(), body });
      for (const [body, field] of [
        [{ day: 0 }, 'day'],
        [{ week: 1.5 }, 'week'],
        [{ day: 1_000_000_001 }, 'day'],
      ] as const) {
        const answer = await put(body);
        expect([body, answer.response.status, fieldErrors(answer)?.map((e) => e.field)]).toEqual([body, 422, [field]]);
      }
      // A string for a number, an unknown field, broken JSON: raw http(), which the typed client would not send.
      const path = `/admin/v1/workstreams/${fresh.workstreamId}/task-quota`;
      const putRaw = (body: unknown) =>
        http<{ message: string; errors?: { field: string; message: string }[] }>('PUT', path, { headers: adminHeaders(), body });
      for (const [body, field] of [
        [{ month: '100' }, 'month'],
        [{ hour: 10 }, 'hour'],
      ] as const) {
        const answer = await putRaw(body);
        expect([body, answer.status, answer.body.errors?.map((e) => e.field)]).toEqual([body, 422, [field]]);
      }
      expect((await putRaw('{"day":')).status).toBe(400);
      const unknown = await admin.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { ...quota('ws_nope'), body: { day: 5 } });
      expect(unknown.response.status).toBe(404);
      expect((await admin.GET('/admin/v1/workstreams/{workstream_id}/task-quota', quota('ws_nope'))).response.status).toBe(404);
      expect((await put({ day: 5 }, apiClient({ apiKey: fresh.key }))).response.status).toBe(401);
      // Nothing refused changed it.
      const read = await admin.GET('/admin/v1/workstreams/{workstream_id}/task-quota', quota());
      expect(read.data?.day).toMatchObject({ limit: 10_000, custom: false });
    });

    it(
      'requests refused before they reach task creation ' + '(bad JSON, wrong fields, wrong content type) do not use up the quota',
      async () => {
        const fresh = await newTenant();
        // Its key is now cached, so the quota is counted in the authentication's Redis round trip and must be given back.
        expect(
          (await createTask(fresh, { media_key: 'med_unknown000000000000', configuration_id: fresh.configurationId }, base)).status,
        ).toBe(404);
        const send = (body: string, contentType = 'application/json') =>
          fetch(`${base}/v1/tasks`, { method: 'POST', headers: { 'x-api-key': fresh.key, 'content-type': contentType }, body });
        const refusals = await Promise.all([
          send('{"media_key":'),
          send(JSON.stringify({ media_key: 42 })),
          send(JSON.stringify({ media_key: 'med_x', configuration_id: fresh.configurationId, colour: 'red' })),
          send('media_key=med_x', 'application/x-www-form-urlencoded'),
        ]);
        expect(refusals.map((answer) => answer.status)).toEqual([400, 422, 422, 415]);
        for (let i = 0; i < 2; i++) expect((await createImageTask(fresh)).status).toBe(201);
        const over = await createImageTask(fresh);
        expect(over.status).toBe(429);
      },
    );

    it('retries with an Idempotency-Key are not charged again, and still answer once the quota is used up', async () => {
      const fresh = await newTenant();
      const key = idempotencyKey();
      const body = { media_key: await uploaded(fresh, PNG(), 'image/png'), configuration_id: fresh.configurationId };
      const first = await createTask(fresh, body, base, withKey(key));
      expect(first.status).toBe(201);
      for (let i = 0; i < 3; i++)
        expect((await createTask(fresh, body, base, withKey(key))).data).toEqual({ task_id: first.data!.task_id });
      // The three retries used nothing: one more task fits the daily quota of 2, then it is full.
      expect((await createImageTask(fresh, withKey(idempotencyKey()))).status).toBe(201);
      const over = await createImageTask(fresh, withKey(idempotencyKey()));
      expect(over.status).toBe(429);
      const replay = await createTask(fresh, body, base, withKey(key));
      expect({ status: replay.status, body: replay.data, replayed: replay.response.headers.get('idempotent-replayed') }).toEqual({
        status: 201,
        body: { task_id: first.data!.task_id },
        replayed: 'true',
      });
      const changed = await createTask(fresh, { ...body, existing_tags: [] }, base, withKey(key));
      expect(changed.status).toBe(422);
    });
  });
});
