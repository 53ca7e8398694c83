import type { QueryOf, Schemas } from '@workline/client';
import {
  apiClient,
  basicHeader,
  completeUnit,
  createPlatformAccount,
  createWorker,
  DeliveryWatcher,
  eventually,
  flagUnit,
  http,
  ISO_SECONDS,
  LoopbackReceiver,
  nextUnit,
  openSealed,
  replySizesOfRequest,
  type PlatformAccount,
  platformClient,
  listedRuns,
  ok,
  stackLogs,
  testStack,
  withStatus,
} from '@workline/testing';
import { Topic } from '@workline/contracts';
import { randomUUID } from 'node:crypto';

type RunView = Schemas['RunAnswer'];
type UnitsQuery = QueryOf<'getV4RunsId'>;

describe('platform API v4: lines, runs, abort, callbacks (real Kafka and PostgreSQL)', () => {
  let acme: PlatformAccount;
  let other: PlatformAccount;
  let worker: Record<string, string>;
  let deliveries: DeliveryWatcher;

  const createRun = (account: PlatformAccount, body: Schemas['CreateRunBody'], header: { 'Idempotency-Key'?: string } = {}) =>
    withStatus(platformClient(account).POST('/v4/runs', { params: { header }, body }));
  const getRun = (account: PlatformAccount, id: string, query: UnitsQuery = {}) =>
    withStatus(platformClient(account).GET('/v4/runs/{id}', { params: { path: { id }, query } }));
  const abortRun = (account: PlatformAccount, id: string) =>
    withStatus(platformClient(account).POST('/v4/runs/{id}/abort', { params: { path: { id } } }));
  /** What a client that sends a body the typed client would not (wrong shape, unknown keys, raw text) gets. */
  const createRunRaw = (account: PlatformAccount, body: unknown, headers: Record<string, string> = {}) =>
    http<RunView>('POST', '/v4/runs', { headers: { ...account.auth, ...headers }, body });
  // What support sees (GET /admin/v1/runs): the proof that a refused request created nothing.
  const runsOfLine = async (lineId: string) => (await listedRuns({ line_id: lineId })).length;

  /** Leases and completes every unit of the line, with an output derived from the input. */
  async function workLine(lineId: string, outcome: (input: Record<string, unknown>) => 'complete' | 'flag' = () => 'complete') {
    for (let assignment = await nextUnit(worker, lineId); assignment; assignment = await nextUnit(worker, lineId)) {
      const result =
        outcome(assignment.input) === 'complete'
          ? await completeUnit(worker, assignment.assignment_id, {
              output: { label: `done-${String(assignment.input.identifier)}`, nested: { ok: true } },
            })
          : await flagUnit(worker, assignment.assignment_id, 'unreadable');
      expect(result.status).toBe(200);
    }
  }

  beforeAll(async () => {
    [acme, other, worker, deliveries] = await Promise.all([
      createPlatformAccount('Receipts'),
      createPlatformAccount('Other'),
      createWorker(),
      DeliveryWatcher.start(),
    ]);
  });

  afterAll(async () => {
    await deliveries.stop();
  });

  describe('GET /v4/lines', () => {
    it("lists the caller's lines only, as {name, id}", async () => {
      const result = await platformClient(acme).GET('/v4/lines');
      expect(result.response.status).toBe(200);
      expect(result.data).toEqual([{ name: 'Receipts', id: acme.lineId }]);
      const others = await platformClient(other).GET('/v4/lines');
      expect(others.data).toEqual([{ name: 'Other', id: other.lineId }]);
    });
  });

  describe('errors', () => {
    it('401 Bad credentials without credentials, with a wrong password, an unknown user or a malformed header', async () => {
      const headers = [
        {},
        basicHeader(acme.username, 'wrong'),
        basicHeader('nobody', 'x'),
        { authorization: 'Basic !!!' },
        { authorization: 'Bearer x' },
      ];
      const anonymous = apiClient();
      const some = { path: { id: 'some-run' } };
      for (const h of headers) {
        const calls: [string, Promise<{ error?: unknown; response: Response }>][] = [
          ['GET /v4/lines', anonymous.GET('/v4/lines', { headers: h })],
          ['POST /v4/runs', anonymous.POST('/v4/runs', { headers: h, body: { line_id: acme.lineId, units: [{}] } })],
          ['GET /v4/runs/some-run', anonymous.GET('/v4/runs/{id}', { headers: h, params: some })],
          ['POST /v4/runs/some-run/abort', anonymous.POST('/v4/runs/{id}/abort', { headers: h, params: some })],
        ];
        for (const [call, answer] of calls) {
          const { error, response } = await answer;
          expect([call, response.status, error]).toEqual([call, 401, { message: 'Bad credentials' }]);
          expect(response.headers.get('www-authenticate')).toBe('Basic realm="Workline platform API", charset="UTF-8"');
        }
      }
      expect(await runsOfLine(acme.lineId)).toBe(0);
    });

    it('404 Not found for unknown paths (with or without credentials), unknown runs and runs of another account', async () => {
      // Paths no operation has: raw http().
      for (const headers of [acme.auth, {}]) {
        for (const path of ['/v4/nope', '/v4/runs', '/v4/lines/x/y', '/v4']) {
          const result = await http('GET', path, { headers });
          expect([path, result.status, result.body]).toEqual([path, 404, { message: 'Not found' }]);
        }
      }
      const unknown = await getRun(acme, 'no-such-run');
      expect([unknown.status, unknown.error]).toEqual([404, { message: 'Not found' }]);
      const created = await createRun(other, { line_id: other.lineId, units: [{ identifier: 'o1' }] });
      expect(created.status).toBe(201);
      const theirs = { params: { path: { id: created.data!.id } } };
      for (const [method, call] of [
        ['GET', platformClient(acme).GET('/v4/runs/{id}', theirs)],
        ['POST', platformClient(acme).POST('/v4/runs/{id}/abort', theirs)],
        ['DELETE', platformClient(acme).DELETE('/v4/runs/{id}', theirs)],
      ] as const) {
        const { error, response } = await call;
        expect([method, response.status, error]).toEqual([method, 404, { message: 'Not found' }]);
      }
      const stillProcessing = await getRun(other, created.data!.id);
      expect(stillProcessing.data?.status).toBe('Processing');
      expect(stillProcessing.data?.units[0].meta.status).toBe('Processing');
    });

    it('403 Forbidden for an operation on a resource the caller may read but not change', async () => {
      const createLine = await platformClient(acme).POST('/v4/lines', { body: { name: 'mine' } });
      expect([createLine.response.status, createLine.error]).toEqual([403, { message: 'Forbidden' }]);
      const lines = await platformClient(acme).GET('/v4/lines');
      expect(lines.data).toHaveLength(1);
      const run = await ok(createRun(acme, { line_id: acme.lineId, units: [{ identifier: 'keep' }] }), 201);
      const remove = await platformClient(acme).DELETE('/v4/runs/{id}', { params: { path: { id: run.id } } });
      expect([remove.response.status, remove.error]).toEqual([403, { message: 'Forbidden' }]);
      expect((await getRun(acme, run.id)).status).toBe(200);
    });

    it('400 Problem parsing the body for invalid JSON, and nothing is created', async () => {
      for (const text of ['{"line_id": ', '{units: []}', 'nope']) {
        const result = await http('POST', '/v4/runs', { headers: acme.auth, body: text });
        expect([result.status, result.body]).toEqual([400, { message: 'Problem parsing the body' }]);
      }
      expect(await runsOfLine(acme.lineId)).toBe(1);
    });

    it('an empty or whitespace-only JSON body is no body: 422 naming the first missing key', async () => {
      for (const text of ['', '  \n ']) {
        const result = await http('POST', '/v4/runs', { headers: acme.auth, body: text });
        expect([JSON.stringify(text), result.status, result.body]).toEqual([
          JSON.stringify(text),
          422,
          { message: 'Invalid request: missing key line_id' },
        ]);
      }
    });

    it('422 naming the missing key or the key of the wrong type, and nothing is created', async () => {
      const before = await runsOfLine(acme.lineId);
      // Keys missing or of the wrong type, a body that is no object: raw http(), which the typed client would not send.
      const shapes: [unknown, string][] = [
        [{ units: [{ a: 1 }] }, 'Invalid request: missing key line_id'],
        [{ line_id: acme.lineId }, 'Invalid request: missing key units'],
        [{}, 'Invalid request: missing key line_id'],
        [{ line_id: 42, units: [{}] }, 'Invalid request: line_id is not of the expected type (a non-empty string)'],
        [{ line_id: acme.lineId, units: {} }, 'Invalid request: units is not of the expected type (a non-empty array of objects)'],
        [{ line_id: acme.lineId, units: 'x' }, 'Invalid request: units is not of the expected type (a non-empty array of objects)'],
        [{ line_id: acme.lineId, units: [{}, 3] }, 'Invalid request: units[1] is not of the expected type (object)'],
        [{ line_id: acme.lineId, units: [[1]] }, 'Invalid request: units[0] is not of the expected type (object)'],
        [{ line_id: acme.lineId, units: [null] }, 'Invalid request: units[0] is not of the expected type (object)'],
        [{ line_id: acme.lineId, units: [{}], callback_url: 7 }, 'Invalid request: callback_url is not of the expected type (string)'],
        [[{ line_id: acme.lineId }], 'Invalid request: (body) is not of the expected type (a JSON object)'],
        ['"text"', 'Invalid request: (body) is not of the expected type (a JSON object)'],
      ];
      for (const [body, message] of shapes) {
        const result = await createRunRaw(acme, body);
        expect([body, result.status, result.body]).toEqual([body, 422, { message }]);
      }
      const cases: [Schemas['CreateRunBody'], string][] = [
        [{ line_id: '', units: [{}] }, 'Invalid request: line_id is not of the expected type (a non-empty string)'],
        [{ line_id: acme.lineId, units: [] }, 'Invalid request: units is not of the expected type (a non-empty array of objects)'],
        [
          { line_id: other.lineId, units: [{}] },
          'Invalid request: line_id is not of the expected type (the id of one of your production lines)',
        ],
        [
          { line_id: 'no-such-line', units: [{}] },
          'Invalid request: line_id is not of the expected type (the id of one of your production lines)',
        ],
        [
          { line_id: acme.lineId, units: [{}], callback_url: 'ftp://example.com/x' },
          'Invalid request: callback_url must use http or https',
        ],
        [{ line_id: acme.lineId, units: [{}], callback_url: 'not a url' }, 'Invalid request: callback_url must be an absolute http(s) URL'],
      ];
      for (const [body, message] of cases) {
        const result = await createRun(acme, body);
        expect([body, result.status, result.error]).toEqual([body, 422, { message }]);
      }
      const tooMany = await createRun(acme, { line_id: acme.lineId, units: Array.from({ length: 10_001 }, () => ({})) });
      expect([tooMany.status, tooMany.error]).toEqual([
        422,
        { message: 'Invalid request: units holds 10001 units, more than the 10000 a run may hold' },
      ]);
      expect(await runsOfLine(acme.lineId)).toBe(before);
    });

    it('415 with a message for a body that is not JSON, and nothing is created', async () => {
      for (const contentType of ['text/plain', 'application/x-www-form-urlencoded']) {
        const result = await http('POST', '/v4/runs', { headers: acme.auth, contentType, body: `line_id=${acme.lineId}` });
        expect([result.status, result.body]).toEqual([415, { message: `Content-Type must be application/json (got ${contentType})` }]);
      }
      expect(await runsOfLine(acme.lineId)).toBe(1);
    });

    it('413 with a message for a body over the limit', async () => {
      const limit = Number(testStack().appEnv.BODY_LIMIT_BYTES ?? 10 * 1024 * 1024);
      const big = JSON.stringify({ line_id: acme.lineId, units: [{ blob: 'x'.repeat(limit) }] });
      const result = await http('POST', '/v4/runs', { headers: acme.auth, body: big });
      expect([result.status, result.body]).toEqual([413, { message: `Body is larger than the limit of ${limit} bytes` }]);
    });

    it('422 for bad unit pagination parameters', async () => {
      const run = await ok(createRun(acme, { line_id: acme.lineId, units: [{}] }), 201);
      for (const [query, message] of [
        [{ units_limit: 0 }, 'Invalid request: units_limit is not of the expected type (an integer from 1 to 10000)'],
        [{ units_offset: -1 }, 'Invalid request: units_offset is not of the expected type (an integer of 0 or more)'],
      ] as const) {
        const result = await getRun(acme, run.id, query);
        expect([query, result.status, result.error]).toEqual([query, 422, { message }]);
      }
      // Not a number at all: raw http(), which the typed client would not send.
      const notNumber = await http('GET', `/v4/runs/${run.id}?units_limit=abc`, { headers: acme.auth });
      expect([notNumber.status, notNumber.body]).toEqual([
        422,
        { message: 'Invalid request: units_limit is not of the expected type (an integer from 1 to 10000)' },
      ]);
    });
  });

  describe('runs', () => {
    it('creates a run (201), echoes every input exactly and ignores unknown top-level keys', async () => {
      const units = [
        { identifier: 'u1', text: 'hello', nested: { deep: { list: [1, 'two', null], flag: false } } },
        { identifier: 'u2', amount: 12.5, empty: {} },
      ];
      // An unknown top-level key on purpose (ignored): raw http(), which the typed client would not send.
      const created = await createRunRaw(acme, { line_id: acme.lineId, units, something_else: true });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({
        id: expect.any(String),
        line_id: acme.lineId,
        status: 'Processing',
        created_at: expect.stringMatching(ISO_SECONDS),
      });
      const run = await getRun(acme, created.body.id);
      expect(run.status).toBe(200);
      expect(run.data).toEqual({
        id: created.body.id,
        line_id: acme.lineId,
        status: 'Processing',
        created_at: created.body.created_at,
        processed_at: null,
        units: units.map((input) => ({
          input,
          output: {},
          meta: { status: 'Processing', created_at: created.body.created_at, processed_at: null },
        })),
      });
    });

    it(
      'Processing → Processed when every unit is Completed or Flagged; ' + 'the callback carries the GET body, credentials sealed apart',
      async () => {
        const created = await createRun(acme, {
          line_id: acme.lineId,
          callback_url: 'http://client:s3cr%40t@127.0.0.1:9/hooks/run?x=1',
          units: [{ identifier: 'a' }, { identifier: 'b', bad: true }, { identifier: 'c' }],
        });
        expect(created.status).toBe(201);
        expect(JSON.stringify(created.data)).not.toContain('s3cr');
        const runId = created.data!.id;
        await workLine(acme.lineId, (input) => (input.bad ? 'flag' : 'complete'));
        const run = await ok(getRun(acme, runId), 200);
        expect(run.status).toBe('Processed');
        expect(run.processed_at).toMatch(ISO_SECONDS);
        expect(JSON.stringify(run)).not.toContain('s3cr');
        expect(JSON.stringify(run)).not.toContain('callback');
        expect(run.units.map((u) => [u.input.identifier, u.meta.status, u.output])).toEqual([
          ['a', 'Completed', { label: 'done-a', nested: { ok: true } }],
          ['b', 'Flagged', {}],
          ['c', 'Completed', { label: 'done-c', nested: { ok: true } }],
        ]);
        for (const unit of run.units) {
          expect(unit.meta.processed_at).toMatch(ISO_SECONDS);
          expect(unit.meta.processed_at! <= run.processed_at!).toBe(true);
        }

        const delivery = await deliveries.first(runId);
        expect(delivery).toEqual({
          delivery_id: expect.any(String),
          owner: { account_id: acme.id },
          subject: { run_id: runId },
          event_type: 'run.processed',
          url: 'http://127.0.0.1:9/hooks/run?x=1',
          body: expect.any(String),
          signing: 'none',
          sealed_authorization: expect.any(String),
        });
        expect(JSON.parse(delivery.body)).toEqual(run);
        expect(openSealed(delivery.sealed_authorization!)).toBe(`Basic ${Buffer.from('client:s3cr@t').toString('base64')}`);
        expect(JSON.stringify(delivery)).not.toContain('s3cr');
        expect(deliveries.of(runId)).toHaveLength(1);
      },
    );

    it('a run without callback_url becomes Processed without any delivery', async () => {
      const line = await createPlatformAccount('NoCallback');
      const created = await ok(createRun(line, { line_id: line.lineId, units: [{ identifier: 'only' }] }), 201);
      await workLine(line.lineId);
      expect((await getRun(line, created.id)).data?.status).toBe('Processed');
      // A run with a callback, created after, is delivered: its delivery proves the watcher has read past this run.
      const marker = await ok(createRun(line, { line_id: line.lineId, callback_url: 'http://127.0.0.1:9/m', units: [{}] }), 201);
      await workLine(line.lineId);
      await deliveries.first(marker.id);
      expect(deliveries.of(created.id)).toEqual([]);
    });
  });

  describe('Idempotency-Key on POST /v4/runs (safe retries)', () => {
    const receiver = new LoopbackReceiver();
    const createWithKey = (account: PlatformAccount, key: string, body: Schemas['CreateRunBody']) =>
      createRun(account, body, { 'Idempotency-Key': key });
    const newKey = () => `run-${randomUUID()}`;

    beforeAll(() => receiver.start());
    afterAll(() => receiver.stop());

    it(
      'a retry with the same key and body answers the same run (Idempotent-Replayed), creates nothing, and the ' +
        'callback is posted once',
      async () => {
        const account = await createPlatformAccount('Idempotent');
        const key = newKey();
        const body = {
          line_id: account.lineId,
          callback_url: receiver.url('/idempotent-run'),
          units: [{ identifier: 'a', n: 1 }, { identifier: 'b' }],
        };
        const first = await createWithKey(account, key, body);
        expect(first.status).toBe(201);
        expect(first.response.headers.get('idempotent-replayed')).toBeNull();
        const runId = first.data!.id;
        const reordered = {
          units: [{ n: 1, identifier: 'a' }, { identifier: 'b' }],
          callback_url: body.callback_url,
          line_id: account.lineId,
        };
        const retry = await createWithKey(account, key, reordered);
        expect({ status: retry.status, body: retry.data, replayed: retry.response.headers.get('idempotent-replayed') }).toEqual({
          status: 201,
          body: first.data,
          replayed: 'true',
        });
        // The body travels as the client's text: other spacing is still the same request (raw text: http()).
        const spaced = await createRunRaw(account, JSON.stringify(body, null, 2), { 'idempotency-key': key });
        expect({ status: spaced.status, body: spaced.body }).toEqual({ status: 201, body: first.data });
        expect(await runsOfLine(account.lineId)).toBe(1);
        expect((await getRun(account, runId)).data?.units).toHaveLength(2);

        await workLine(account.lineId);
        expect((await getRun(account, runId)).data?.status).toBe('Processed');
        // Even after the run is processed, a retry answers the creation as it was, and posts nothing again.
        const late = await createWithKey(account, key, body);
        expect({ status: late.status, body: late.data, replayed: late.response.headers.get('idempotent-replayed') }).toEqual({
          status: 201,
          body: first.data,
          replayed: 'true',
        });
        const callbacksOf = async (id: string) =>
          (await ok(platformClient(account).GET('/v1/deliveries'), 200)).deliveries.filter((d) => d.run_id === id);
        await eventually(async () => (await callbacksOf(runId)).map((d) => d.status).join() === 'delivered', {
          what: 'the one callback of the run to be delivered',
        });
        expect(receiver.on('/idempotent-run').map((request) => JSON.parse(request.rawBody.toString('utf8')).id)).toEqual([runId]);
        expect(deliveries.of(runId)).toHaveLength(1);
        expect(await runsOfLine(account.lineId)).toBe(1);
      },
    );

    it('the same key with another body is a 422 naming the header, nothing is created; keys are per account', async () => {
      const key = newKey();
      const first = await createWithKey(acme, key, { line_id: acme.lineId, units: [{ identifier: 'one' }] });
      expect(first.status).toBe(201);
      const before = await runsOfLine(acme.lineId);
      const changed = await createWithKey(acme, key, { line_id: acme.lineId, units: [{ identifier: 'two' }] });
      const message =
        `Idempotency-Key "${key}" was already used with another request: send the same request to get its ` +
        `answer again, or a new key for a new request`;
      expect({ status: changed.status, body: changed.error }).toEqual({ status: 422, body: { message: `Invalid request: ${message}` } });
      // The v3 creation is another request, even with the same units.
      const asV3 = await platformClient(acme).POST('/v3/tasks', {
        params: { header: { 'Idempotency-Key': key } },
        body: { template_id: acme.lineId, resources: [{ identifier: 'one' }] },
      });
      expect({ status: asV3.response.status, body: asV3.error }).toEqual({
        status: 400,
        body: { status: 102, error: 'Data is invalid', detail: message },
      });
      expect(await runsOfLine(acme.lineId)).toBe(before);
      expect((await getRun(acme, first.data!.id)).data?.units.map((unit) => unit.input)).toEqual([{ identifier: 'one' }]);
      const theirs = await createWithKey(other, key, { line_id: other.lineId, units: [{ identifier: 'one' }] });
      expect(theirs.status).toBe(201);
      expect(theirs.data?.id).not.toBe(first.data!.id);
    });

    it('a malformed Idempotency-Key is a 422 naming the header, and nothing is created', async () => {
      const account = await createPlatformAccount('Malformed key');
      for (const bad of ['', 'k'.repeat(256), 'cl\u00e9']) {
        const result = await createWithKey(account, bad, { line_id: account.lineId, units: [{}] });
        expect({ status: result.status, body: result.error }).toEqual({
          status: 422,
          body: { message: 'Invalid request: Idempotency-Key header must be 1 to 255 printable ASCII characters' },
        });
      }
      expect(await runsOfLine(account.lineId)).toBe(0);
    });

    it('five requests at once with one key create one run', async () => {
      const account = await createPlatformAccount('Concurrent');
      const key = newKey();
      const body = { line_id: account.lineId, units: Array.from({ length: 50 }, (_, i) => ({ identifier: `u${i}` })) };
      const results = await Promise.all(Array.from({ length: 5 }, () => createWithKey(account, key, body)));
      expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201]);
      expect(new Set(results.map((result) => result.data?.id)).size).toBe(1);
      expect(results.filter((result) => result.response.headers.get('idempotent-replayed') === null)).toHaveLength(1);
      expect(await runsOfLine(account.lineId)).toBe(1);
      expect((await getRun(account, results[0].data!.id)).data?.units).toHaveLength(50);
    });
  });

  describe('abort', () => {
    it(
      'mid-run: done units stay Completed, the rest (leased ones too) end Aborted, ' + 'then the run is Processed and posted once',
      async () => {
        const account = await createPlatformAccount('Abortable');
        const units = Array.from({ length: 6 }, (_, i) => ({ identifier: `u${i}` }));
        const created = await ok(createRun(account, { line_id: account.lineId, callback_url: 'http://127.0.0.1:9/abort', units }), 201);
        for (let i = 0; i < 2; i++) {
          const assignment = await nextUnit(worker, account.lineId);
          expect((await completeUnit(worker, assignment!.assignment_id, { output: { n: i } })).status).toBe(200);
        }
        const leased = await nextUnit(worker, account.lineId);

        const abort = await abortRun(account, created.id);
        expect(abort.status).toBe(202);
        expect(abort.data).toEqual({ message: expect.any(String) });

        const run = await eventually(
          async () => {
            const current = await getRun(account, created.id);
            return current.data?.status === 'Processed' ? current.data : undefined;
          },
          { what: 'the aborted run to be Processed' },
        );
        expect(run.units.map((u) => [u.input.identifier, u.meta.status, u.output])).toEqual([
          ['u0', 'Completed', { n: 0 }],
          ['u1', 'Completed', { n: 1 }],
          ['u2', 'Aborted', {}],
          ['u3', 'Aborted', {}],
          ['u4', 'Aborted', {}],
          ['u5', 'Aborted', {}],
        ]);
        expect(run.processed_at).toMatch(ISO_SECONDS);

        const late = await completeUnit(worker, leased!.assignment_id, { output: { too: 'late' } });
        expect(late.status).toBe(409);
        expect(late.error).toEqual({
          message: `assignment ${leased!.assignment_id} cannot be completed: its run was aborted and the unit is Aborted`,
        });
        expect(await nextUnit(worker, account.lineId)).toBeUndefined();

        const delivery = await deliveries.first(created.id);
        expect(JSON.parse(delivery.body)).toEqual(run);
        expect(delivery.sealed_authorization).toBeUndefined();
      },
    );

    it('abort of a processed run: 405 with the spec message, the run unchanged', async () => {
      const account = await createPlatformAccount('Done');
      const created = await ok(createRun(account, { line_id: account.lineId, units: [{ identifier: 'x' }] }), 201);
      await workLine(account.lineId);
      const before = await getRun(account, created.id);
      expect(before.data?.status).toBe('Processed');
      const abort = await abortRun(account, created.id);
      expect([abort.status, abort.error]).toEqual([405, { message: 'The run is already processed and cannot be aborted' }]);
      expect((await getRun(account, created.id)).data).toEqual(before.data);
    });

    it('abort before any work: every unit Aborted', async () => {
      const account = await createPlatformAccount('Early');
      const created = await ok(createRun(account, { line_id: account.lineId, units: [{ identifier: 'a' }, { identifier: 'b' }] }), 201);
      expect((await abortRun(account, created.id)).status).toBe(202);
      const run = await eventually(async () => {
        const current = await getRun(account, created.id);
        return current.data?.status === 'Processed' ? current.data : undefined;
      });
      expect(run.units.map((u) => u.meta.status)).toEqual(['Aborted', 'Aborted']);
    });
  });

  describe('big runs', () => {
    it(
      'accepts 10,000 units in one request, returns them all (through the blob store, not the shared reply topic), ' +
        'and pages them on request',
      async () => {
        const account = await createPlatformAccount('Big');
        const units = Array.from({ length: 10_000 }, (_, i) => ({
          identifier: `unit-${i}`,
          payload: { index: i, text: 'lorem ipsum dolor sit amet', quote: 'say "é"' },
        }));
        const createdRun = await createRun(account, { line_id: account.lineId, units });
        expect(createdRun.status).toBe(201);
        const created = createdRun.data!;
        const since = Date.now();
        const requestId = `big-run-${randomUUID()}`;
        const answer = await platformClient(account).GET('/v4/runs/{id}', {
          params: { path: { id: created.id } },
          headers: { 'x-request-id': requestId },
        });
        expect(answer.response.status).toBe(200);
        expect(answer.response.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const run = answer.data!;
        expect(run.units).toHaveLength(10_000);
        expect(run.units.map((u) => u.input)).toEqual(units);
        expect(run).toMatchObject({
          id: created.id,
          line_id: account.lineId,
          status: 'Processing',
          created_at: created.created_at,
          processed_at: null,
        });
        expect(run.units[9_999]).toEqual({
          input: units[9_999],
          output: {},
          meta: { status: 'Processing', created_at: created.created_at, processed_at: null },
        });
        expect(run.units_page).toBeUndefined();
        // The ~2 MB answer never went over the reply topic every gateway reads: only small replies did.
        const sizes = await replySizesOfRequest(Topic.PlatformRunsRpc, requestId, since);
        expect(sizes.length).toBeGreaterThan(0);
        expect(Math.max(...sizes)).toBeLessThan(4096);
        // That the answer's blob is deleted once read is proven beside it (libs/blob-store/src/blob-replies.spec.ts).
        // The same body as the pages read inline (each under the inline limit), put together.
        const pages: RunView[] = [];
        for (let offset = 0; offset < 10_000; offset += 1_000)
          pages.push(await ok(getRun(account, created.id, { units_offset: offset, units_limit: 1000 }), 200));
        const { units: _units, units_page: _page, ...head } = pages[0];
        expect(run).toEqual({ ...head, units: pages.flatMap((p) => p.units) });
        const page = await getRun(account, created.id, { units_offset: 9998, units_limit: 5 });
        expect(page.status).toBe(200);
        expect(page.data?.units.map((u) => u.input.identifier)).toEqual(['unit-9998', 'unit-9999']);
        expect(page.data?.units_page).toEqual({ offset: 9998, limit: 5, total: 10_000 });
        expect(page.data?.status).toBe('Processing');
        // Leave nothing for other tests' workers: abort it.
        expect((await abortRun(account, created.id)).status).toBe(202);
      },
    );
  });

  describe('callbacks never leak credentials into logs', () => {
    it('the gateway and platform-runs logs hold no callback password', async () => {
      const created = await createRun(acme, {
        line_id: acme.lineId,
        callback_url: 'http://leaky:pa55-w0rd-zz@127.0.0.1:9/cb',
        units: [{}],
      });
      expect(created.status).toBe(201);
      await workLine(acme.lineId);
      await deliveries.first(created.data!.id);
      const logs = stackLogs();
      for (const app of ['gateway', 'platform-runs']) expect([app, logs.get(`${app}.log`)?.includes('pa55-w0rd-zz')]).toEqual([app, false]);
    });
  });
});
