import type { Schemas, WorklineClient } from '@workline/client';
import {
  apiClient,
  startGateway,
  basicHeader,
  completeUnit,
  createPlatformAccount,
  createWorker,
  DeliveryWatcher,
  eventually,
  flagUnit,
  http,
  ISO_SECONDS,
  replySizesOfRequest,
  nextUnit,
  openSealed,
  ok,
  type PlatformAccount,
  platformClient,
  testStack,
  withStatus,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { Topic } from '@workline/contracts';

const UTC = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;

describe('platform API v3 (deprecated): batches over v4 runs (real Kafka and PostgreSQL)', () => {
  let acme: PlatformAccount;
  let other: PlatformAccount;
  let worker: Record<string, string>;
  let deliveries: DeliveryWatcher;

  const send = (account: PlatformAccount, body: Schemas['CreateV3TaskBody'], client: WorklineClient = platformClient(account)) =>
    withStatus(client.POST('/v3/tasks', { body }));
  const getBatch = (account: PlatformAccount, id: string, headers: Record<string, string> = {}) =>
    withStatus(platformClient(account).GET('/v3/tasks/{task_id}', { params: { path: { task_id: id } }, headers }));
  const abortRun = (account: PlatformAccount, id: string) =>
    platformClient(account).POST('/v4/runs/{id}/abort', { params: { path: { id } } });

  beforeAll(async () => {
    [acme, other, worker, deliveries] = await Promise.all([
      createPlatformAccount('V3'),
      createPlatformAccount('V3 other'),
      createWorker(),
      DeliveryWatcher.start(),
    ]);
  });

  afterAll(() => deliveries.stop());

  it(
    'In-Progress on submission, Completed when done; resources hold input, output, identifier and extra.status; the ' +
      'callback uses completed_at',
    async () => {
      const sent = await send(acme, {
        template_id: acme.lineId,
        callback_url: 'http://v3user:v3pass@127.0.0.1:9/v3/callback',
        resources: [
          { identifier: 'r1', url: 'https://img/1.jpg', meta: { w: 10 } },
          { url: 'https://img/2.jpg' },
          { identifier: 'r3', bad: true },
        ],
      });
      expect(sent.status).toBe(200);
      expect(sent.data).toEqual({
        template_id: acme.lineId,
        task_id: expect.any(String),
        status: 'In-Progress',
        started_at: expect.stringMatching(ISO_SECONDS),
      });
      const { task_id: taskId, started_at: startedAt } = sent.data!;

      const pending = await getBatch(acme, taskId);
      expect(pending.status).toBe(200);
      expect(pending.data).toEqual({
        task_id: taskId,
        template_id: acme.lineId,
        status: 'In-Progress',
        started_at: startedAt,
        finished_at: null,
        resources: [
          { identifier: 'r1', url: 'https://img/1.jpg', meta: { w: 10 }, extra: { status: 'In-Progress' } },
          { url: 'https://img/2.jpg', extra: { status: 'In-Progress' } },
          { identifier: 'r3', bad: true, extra: { status: 'In-Progress' } },
        ],
      });

      for (let a = await nextUnit(worker, acme.lineId); a; a = await nextUnit(worker, acme.lineId)) {
        const result = a.input.bad
          ? await flagUnit(worker, a.assignment_id, 'bad')
          : await completeUnit(worker, a.assignment_id, { output: { label: 'cat', url: 'ignored' } });
        expect(result.status).toBe(200);
      }

      const done = await ok(getBatch(acme, taskId), 200);
      expect(done).toEqual({
        task_id: taskId,
        template_id: acme.lineId,
        status: 'Completed',
        started_at: startedAt,
        finished_at: expect.stringMatching(ISO_SECONDS),
        resources: [
          { identifier: 'r1', url: 'https://img/1.jpg', meta: { w: 10 }, label: 'cat', extra: { status: 'Completed' } },
          { url: 'https://img/2.jpg', label: 'cat', extra: { status: 'Completed' } },
          { identifier: 'r3', bad: true, extra: { status: 'Flagged' } },
        ],
      });
      expect(JSON.stringify(done)).not.toContain('v3pass');

      const delivery = await deliveries.first(taskId);
      expect(delivery).toMatchObject({
        event_type: 'batch.completed',
        url: 'http://127.0.0.1:9/v3/callback',
        signing: 'none',
        owner: { account_id: acme.id },
      });
      expect(openSealed(delivery.sealed_authorization!)).toBe(`Basic ${Buffer.from('v3user:v3pass').toString('base64')}`);
      const body = JSON.parse(delivery.body);
      expect(body).toEqual({
        task_id: taskId,
        template_id: acme.lineId,
        status: 'Completed',
        started_at: expect.stringMatching(UTC),
        completed_at: expect.stringMatching(UTC),
        resources: done.resources,
      });
      expect(body.started_at).toBe(`${startedAt.slice(0, 10)} ${startedAt.slice(11, 19)} UTC`);
      expect(body.completed_at).toBe(`${done.finished_at!.slice(0, 10)} ${done.finished_at!.slice(11, 19)} UTC`);
    },
  );

  it('a 10,000-resource batch: created in one request, read back whole, its answer kept off the shared reply topic', async () => {
    const account = await createPlatformAccount('V3 big');
    const resources = Array.from({ length: 10_000 }, (_, i) => ({
      identifier: `r-${i}`,
      url: `https://img/${i}.jpg`,
      note: 'a "quoted" ünïcode note',
    }));
    const sent = await ok(send(account, { template_id: account.lineId, resources }), 200);
    const since = Date.now();
    const requestId = `big-batch-${randomUUID()}`;
    const batch = await getBatch(account, sent.task_id, { 'x-request-id': requestId });
    expect(batch.status).toBe(200);
    expect(batch.data).toEqual({
      task_id: sent.task_id,
      template_id: account.lineId,
      status: 'In-Progress',
      started_at: sent.started_at,
      finished_at: null,
      resources: resources.map((resource) => ({ ...resource, extra: { status: 'In-Progress' } })),
    });
    const sizes = await replySizesOfRequest(Topic.PlatformRunsRpc, requestId, since);
    expect(sizes.length).toBeGreaterThan(0);
    expect(Math.max(...sizes)).toBeLessThan(4096);
    expect((await abortRun(account, sent.task_id)).response.status).toBe(202);
  });

  it('a v3 batch is a v4 run: readable and abortable through v4, Aborted shows in extra.status', async () => {
    const sent = await ok(send(acme, { template_id: acme.lineId, resources: [{ identifier: 'x' }, { identifier: 'y' }] }), 200);
    const v4 = await platformClient(acme).GET('/v4/runs/{id}', { params: { path: { id: sent.task_id } } });
    expect(v4.data).toMatchObject({ id: sent.task_id, line_id: acme.lineId, status: 'Processing' });
    expect((await abortRun(acme, sent.task_id)).response.status).toBe(202);
    const batch = await eventually(async () => {
      const current = await getBatch(acme, sent.task_id);
      return current.data?.status === 'Completed' ? current.data : undefined;
    });
    expect(batch.resources).toEqual([
      { identifier: 'x', extra: { status: 'Aborted' } },
      { identifier: 'y', extra: { status: 'Aborted' } },
    ]);
    // v3 has no abort: a path of no operation, raw http().
    const abortV3 = await http('POST', `/v3/tasks/${sent.task_id}/abort`, { headers: acme.auth });
    expect([abortV3.status, abortV3.body]).toEqual([404, { status: 404, error: 'Not found' }]);
  });

  it(
    'Idempotency-Key: a retry answers the same batch (200, Idempotent-Replayed) and creates nothing; a malformed ' +
      'key is 102 (HTTP 400)',
    async () => {
      const key = `batch-${Date.now()}-${Math.random()}`;
      const body = { template_id: other.lineId, resources: [{ identifier: 'once' }] };
      const withKey = (idempotencyKey: string) =>
        withStatus(platformClient(other).POST('/v3/tasks', { params: { header: { 'Idempotency-Key': idempotencyKey } }, body }));
      const first = await withKey(key);
      expect(first.status).toBe(200);
      const retry = await withKey(key);
      expect({ status: retry.status, body: retry.data, replayed: retry.response.headers.get('idempotent-replayed') }).toEqual({
        status: 200,
        body: first.data,
        replayed: 'true',
      });
      expect(retry.response.headers.get('deprecation')).toBe('true');
      const batch = await getBatch(other, first.data!.task_id);
      expect(batch.data?.resources).toHaveLength(1);
      const malformed = await withKey('k'.repeat(256));
      expect({ status: malformed.status, body: malformed.error }).toEqual({
        status: 400,
        body: { status: 102, error: 'Data is invalid', detail: 'Idempotency-Key header must be 1 to 255 printable ASCII characters' },
      });
    },
  );

  describe('errors: {status: code, error}', () => {
    it('401 Unauthorized access', async () => {
      const anonymous = apiClient();
      for (const headers of [{}, basicHeader(acme.username, 'nope')]) {
        for (const [path, call] of [
          ['/v3/tasks', anonymous.POST('/v3/tasks', { headers, body: { template_id: acme.lineId, resources: [{}] } })],
          ['/v3/tasks/x', anonymous.GET('/v3/tasks/{task_id}', { headers, params: { path: { task_id: 'x' } } })],
        ] as const) {
          const { error, response } = await call;
          expect([path, response.status, error]).toEqual([path, 401, { status: 401, error: 'Unauthorized access' }]);
          expect(response.headers.get('www-authenticate')).toBe('Basic realm="Workline platform API", charset="UTF-8"');
        }
      }
    });

    it('103 body invalid, 107 no resources, 102 data invalid, 108 template not found (HTTP 400)', async () => {
      // `error` is the code table's description word for word; what in particular is wrong follows it here and
      // is answered in `detail`.
      const expectedError = (code: number, text: string) => {
        const detail = typeof text === 'string' ? /^(?:Body|Data) is invalid: (.*)$/.exec(text)?.[1] : undefined;
        return typeof text !== 'string'
          ? { status: code, error: 'Body is invalid', detail: expect.any(String) }
          : detail === undefined
            ? { status: code, error: text }
            : { status: code, error: text.slice(0, text.indexOf(':')), detail };
      };
      // Broken JSON, keys missing or of the wrong type: raw http(), which the typed client would not send.
      const shapes: [unknown, number, string][] = [
        ['{"template_id":', 103, expect.stringMatching(/^Body is invalid: ./) as unknown as string],
        [[1, 2], 103, 'Body is invalid: (body) is not of the expected type (a JSON object)'],
        [{ resources: [{}] }, 103, 'Body is invalid: missing key template_id'],
        [{ template_id: 5, resources: [{}] }, 103, 'Body is invalid: template_id is not of the expected type (a non-empty string)'],
        [
          { template_id: acme.lineId, resources: 'x' },
          103,
          'Body is invalid: resources is not of the expected type (a non-empty array of objects)',
        ],
        [
          { template_id: acme.lineId, resources: [{}], callback_url: false },
          103,
          'Body is invalid: callback_url is not of the expected type (string)',
        ],
        [{ template_id: acme.lineId }, 107, 'No resources were passed'],
        [{ template_id: acme.lineId, resources: [{}, 'text'] }, 102, 'Data is invalid: resources[1] is not of the expected type (object)'],
      ];
      for (const [body, code, text] of shapes) {
        const result = await http('POST', '/v3/tasks', { headers: acme.auth, body });
        expect([body, result.status, result.body]).toEqual([body, 400, expectedError(code, text)]);
      }
      const cases: [Schemas['CreateV3TaskBody'], number, string][] = [
        [{ template_id: acme.lineId, resources: [] }, 107, 'No resources were passed'],
        [
          { template_id: acme.lineId, resources: [{}], callback_url: 'gopher://x' },
          102,
          'Data is invalid: callback_url must use http or https',
        ],
        [{ template_id: other.lineId, resources: [{}] }, 108, 'Template not found'],
        [{ template_id: 'nope', resources: [{}] }, 108, 'Template not found'],
      ];
      for (const [body, code, text] of cases) {
        const result = await send(acme, body);
        expect([body, result.status, result.error]).toEqual([body, 400, expectedError(code, text)]);
      }
    });

    it('109 task not found, 100 task not owned by caller (HTTP 400)', async () => {
      const unknown = await getBatch(acme, 'no-such-task');
      expect([unknown.status, unknown.error]).toEqual([400, { status: 109, error: 'Task not found' }]);
      const theirs = await ok(send(other, { template_id: other.lineId, resources: [{ identifier: 'o' }] }), 200);
      const notMine = await getBatch(acme, theirs.task_id);
      expect([notMine.status, notMine.error]).toEqual([400, { status: 100, error: 'Task not owned by caller' }]);
      expect((await abortRun(other, theirs.task_id)).response.status).toBe(202);
    });

    it('a body that is not JSON is 103 at HTTP 400, as the code table says (not 415)', async () => {
      const result = await http('POST', '/v3/tasks', { headers: acme.auth, contentType: 'text/plain', body: 'template_id=x' });
      expect([result.status, result.body]).toEqual([
        400,
        { status: 103, error: 'Body is invalid', detail: 'Content-Type must be application/json (got text/plain)' },
      ]);
    });

    it('every v3 answer is marked deprecated, errors included', async () => {
      const anonymous = apiClient().GET('/v3/tasks/{task_id}', { params: { path: { task_id: 'x' } } });
      for (const { response } of [await getBatch(acme, 'no-such-task'), await anonymous]) {
        expect(response.headers.get('deprecation')).toBe('true');
        expect(response.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
        expect(response.headers.get('link')).toBe(
          `<${testStack().gatewayUrl}/docs/v3-migration.md>; rel="deprecation"; type="text/markdown"`,
        );
      }
    });

    describe('withdrawn (V3_ENABLED=false)', () => {
      let gateway: Awaited<ReturnType<typeof startGateway>>;

      beforeAll(async () => {
        gateway = await startGateway({ V3_ENABLED: 'false' });
      });

      afterAll(() => gateway?.stop());

      it('answers 410 with a v3 error body, and v4 still works', async () => {
        const withdrawn = platformClient(acme, gateway.url);
        const result = await send(acme, { template_id: acme.lineId, resources: [{}] }, withdrawn);
        expect([result.status, result.error]).toEqual([
          410,
          { status: 410, error: `API version 3 has been withdrawn: use /v4 (migration notes: ${gateway.url}/docs/v3-migration.md)` },
        ]);
        expect((await withdrawn.GET('/v4/lines')).response.status).toBe(200);
      });
    });

    it('404 for unknown v3 paths', async () => {
      // A path of no operation: raw http().
      const result = await http('GET', '/v3/batches', { headers: acme.auth });
      expect([result.status, result.body]).toEqual([404, { status: 404, error: 'Not found' }]);
    });
  });
});
