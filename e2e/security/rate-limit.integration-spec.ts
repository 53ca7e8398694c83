import { randomUUID } from 'node:crypto';
import type { Schemas, WorklineClient } from '@workline/client';
import { adminClient, apiClient, http, newWorkerToken, ok, startGateway, withStatus } from '@workline/testing';

type Gateway = Awaited<ReturnType<typeof startGateway>>;

const LIMIT = 3;
const rateHeaders = (headers: Headers) => ({
  limit: headers.get('x-ratelimit-limit'),
  remaining: headers.get('x-ratelimit-remaining'),
  reset: Number(headers.get('x-ratelimit-reset')),
  retryAfter: headers.get('retry-after'),
});

/** GET /v1/api-key on `base` with this key (none with undefined), as the client address of `headers` if any. */
const describeKey = (base: string, apiKey: string | undefined, headers: Record<string, string> = {}) =>
  withStatus(apiClient(apiKey ? { apiKey } : {}, base).GET('/v1/api-key', { headers }));

describe('per-credential rate limits and body limits (own gateways with low limits)', () => {
  let gateway: Gateway;
  let unlimited: Gateway;
  let apiKey: string;
  let account: Schemas['NewAccountAnswer'];
  let newKey: () => Promise<string>;

  beforeAll(async () => {
    const admin = adminClient();
    account = await ok(admin.POST('/admin/v1/accounts', { body: { name: 'Rate Limited Inc' } }), 201);
    const workstream = await ok(admin.POST('/admin/v1/workstreams', { body: { account_id: account.id, name: 'WS', use_cases: [] } }), 201);
    const params = { path: { workstream_id: workstream.id } };
    newKey = async () => (await ok(admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params, body: {} }), 201)).key;
    apiKey = await newKey();
    // TRUST_PROXY lets each test act as a client address of its own for unauthenticated requests.
    [gateway, unlimited] = await Promise.all([
      startGateway({
        TRUST_PROXY: '1',
        RATE_LIMIT_V1_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_V4_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_V3_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_WORK_PER_MINUTE: String(LIMIT),
        RATE_LIMIT_ADMIN_PER_MINUTE: String(LIMIT),
      }),
      startGateway({ RATE_LIMIT_V1_PER_MINUTE: '0', BODY_LIMIT_BYTES: '1024' }),
    ]);
  });

  afterAll(async () => {
    await Promise.all([gateway?.stop(), unlimited?.stop()]);
  });

  it('counts down on successful answers, then refuses with 429, Retry-After and the limit headers', async () => {
    const seen = [];
    for (let i = 0; i < LIMIT; i++) {
      const answer = await describeKey(gateway.url, apiKey);
      expect(answer.status).toBe(200);
      seen.push(rateHeaders(answer.response.headers));
    }
    expect(seen.map((h) => h.remaining)).toEqual(['2', '1', '0']);
    for (const h of seen) {
      expect(h.limit).toBe(String(LIMIT));
      expect(h.reset).toBeGreaterThanOrEqual(1);
      expect(h.reset).toBeLessThanOrEqual(60);
      expect(h.retryAfter).toBeNull();
    }
    const refused = await describeKey(gateway.url, apiKey);
    expect(refused.status).toBe(429);
    expect(refused.error).toEqual({ message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded; retry in \d+ s$/) });
    const h = rateHeaders(refused.response.headers);
    expect(h).toMatchObject({ limit: '3', remaining: '0' });
    expect(Number(h.retryAfter)).toBe(h.reset);
    expect(h.reset).toBeGreaterThanOrEqual(1);
    expect(h.reset).toBeLessThanOrEqual(60);
    // A refused request is not counted: the key stays refused until its earlier requests age out.
    expect((await describeKey(gateway.url, apiKey)).status).toBe(429);
  });

  it('keeps one budget per principal and per API group', async () => {
    const [first, second] = await Promise.all([newKey(), newKey()]);
    for (let i = 0; i < LIMIT; i++) expect((await describeKey(gateway.url, first)).status).toBe(200);
    expect((await describeKey(gateway.url, first)).status).toBe(429);
    // Another key has its budget, and so has an account on each platform API version.
    const other = await describeKey(gateway.url, second);
    expect(other.status).toBe(200);
    expect(other.response.headers.get('x-ratelimit-remaining')).toBe('2');
    const platform = apiClient({ basic: account }, gateway.url);
    for (let i = 0; i < LIMIT; i++) expect((await platform.GET('/v4/lines')).response.status).toBe(200);
    expect((await platform.GET('/v4/lines')).response.status).toBe(429);
    const otherGroup = await platform.GET('/v3/tasks/{task_id}', { params: { path: { task_id: 'nothing' } } });
    expect(otherGroup.response.status).not.toBe(429);
    expect(otherGroup.response.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it(
    'counts a principal however its credential is spelled: ' + '300 re-spellings of an exhausted Authorization header all get 429',
    async () => {
      const fresh = await ok(adminClient().POST('/admin/v1/accounts', { body: { name: 'Respelled Inc' } }), 201);
      const encoded = Buffer.from(`${fresh.username}:${fresh.password}`).toString('base64');
      const worker = { token: await newWorkerToken() };
      // The re-spelled headers, and a kind outside the enum (a 422 still counts against the budget), are sent
      // as raw http(): the typed client spells credentials one way and would not send the body.
      /** The scheme in one of 32 letter cases, then 1 to 10 spaces: 320 spellings the gateway reads as the same credential. */
      const spelling = (scheme: string, i: number, value: string) => {
        const letters = [...scheme].map((letter, bit) => ((i >> bit) & 1 ? letter.toUpperCase() : letter.toLowerCase()));
        return `${letters.join('')}${' '.repeat(1 + (Math.floor(i / 32) % 10))}${value}`;
      };
      for (let i = 0; i < LIMIT; i++) {
        expect((await http('GET', `${gateway.url}/v4/lines`, { headers: { authorization: `Basic ${encoded}` } })).status).toBe(200);
        const work = await http('POST', `${gateway.url}/workforce/v1/assignments/next`, {
          headers: { authorization: `Bearer ${worker.token}` },
          body: { kind: 'nothing' },
        });
        expect(work.status).toBe(422);
      }
      const [platform, work] = await Promise.all([
        Promise.all(
          Array.from({ length: 300 }, (_, i) =>
            http<{ message: string }>('GET', `${gateway.url}/v4/lines`, { headers: { authorization: spelling('basic', i, encoded) } }),
          ),
        ),
        Promise.all(
          Array.from({ length: 300 }, (_, i) =>
            http('POST', `${gateway.url}/workforce/v1/assignments/next`, {
              headers: { authorization: spelling('bearer', i, worker.token) },
              body: { kind: 'nothing' },
            }),
          ),
        ),
      ]);
      expect(platform.map((answer) => answer.status)).toEqual(Array(300).fill(429));
      expect(work.map((answer) => answer.status)).toEqual(Array(300).fill(429));
      expect(platform[299].body).toEqual({
        message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded; retry in \d+ s$/),
      });
    },
  );

  it('counts failed authentications against the client address, whatever credential they try', async () => {
    const client = { 'x-forwarded-for': `198.18.${Math.floor(Math.random() * 250)}.7` };
    for (let i = 0; i < LIMIT; i++) expect((await describeKey(gateway.url, `wlk_${randomUUID()}`, client)).status).toBe(401);
    expect((await describeKey(gateway.url, `wlk_${randomUUID()}`, client)).status).toBe(429);
    // A right key from that address is counted against its own budget.
    expect((await describeKey(gateway.url, await newKey(), client)).status).toBe(200);
  });

  it("answers 429 in each API group's error shape", async () => {
    /** The answer after LIMIT calls: the budget used up. */
    const exhaust = async (call: () => Promise<{ error?: unknown; response: Response }>) => {
      for (let i = 0; i < LIMIT; i++) await call();
      return call();
    };
    const anonymous = apiClient({}, gateway.url);
    // A Basic credential that is no user:password pair, sent as the header of a typed call.
    const badBasic = () => ({ authorization: `Basic ${randomUUID()}` });
    const v4Headers = badBasic();
    const v4 = await exhaust(() => anonymous.GET('/v4/runs/{id}', { params: { path: { id: 'nothing' } }, headers: v4Headers }));
    expect(v4.response.status).toBe(429);
    expect(v4.error).toEqual({ message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded/) });
    const v3Headers = badBasic();
    const v3 = await exhaust(() => anonymous.GET('/v3/tasks/{task_id}', { params: { path: { task_id: 'nothing' } }, headers: v3Headers }));
    expect(v3.response.status).toBe(429);
    expect(v3.error).toEqual({ status: 429, error: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded/) });
    // Still a v3 answer: marked deprecated like every other.
    expect(v3.response.headers.get('deprecation')).toBe('true');
    expect(v3.response.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    const wrongAdmin: WorklineClient = apiClient({ bearer: randomUUID() }, gateway.url);
    const admin = await exhaust(() => wrongAdmin.GET('/admin/v1/api-keys'));
    expect(admin.response.status).toBe(429);
    expect(admin.error).toEqual({ message: expect.stringMatching(/^Rate limit/) });
    expect(admin.response.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('counts requests without a credential by client address', async () => {
    const client = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const headers = { 'x-forwarded-for': client };
    for (let i = 0; i < LIMIT; i++) expect((await describeKey(gateway.url, undefined, headers)).status).toBe(401);
    expect((await describeKey(gateway.url, undefined, headers)).status).toBe(429);
    expect((await describeKey(gateway.url, undefined, { 'x-forwarded-for': '198.19.0.1' })).status).toBe(401);
  });

  it('leaves health checks unlimited, and a limit of 0 switches a group off', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const health = await apiClient({}, gateway.url).GET('/health');
      expect(health.response.status).toBe(200);
      expect(health.response.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const key = `wlk_${randomUUID()}`;
    for (let i = 0; i < LIMIT + 2; i++) {
      const answer = await describeKey(unlimited.url, key);
      expect(answer.status).toBe(401);
      expect(answer.response.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

  // Bodies over the limit, and of no operation's shape: raw http().
  it('refuses a JSON body over BODY_LIMIT_BYTES with 413 in every API group, before authentication', async () => {
    const big = { padding: 'x'.repeat(2048) };
    const post = (path: string) =>
      http<Record<string, unknown>>('POST', `${unlimited.url}${path}`, { headers: { 'x-api-key': `wlk_${randomUUID()}` }, body: big });
    const tooLarge = 'Body is larger than the limit of 1024 bytes';
    for (const path of ['/v1/workstreams/ws/task_completed', '/workforce/v1/assignments/next', '/admin/v1/accounts']) {
      const answer = await post(path);
      expect({ path, status: answer.status, body: answer.body }).toEqual({ path, status: 413, body: { message: tooLarge } });
    }
    expect(await post('/v4/runs')).toMatchObject({ status: 413, body: { message: tooLarge } });
    // v3 answers by its code table: 103 is HTTP 400 (docs/platform-api.md).
    expect(await post('/v3/tasks')).toMatchObject({ status: 400, body: { status: 103, error: 'Body is invalid', detail: tooLarge } });
    // Just under the limit is parsed and reaches authentication.
    const small = await http('POST', `${unlimited.url}/v4/runs`, {
      headers: { authorization: 'Basic bm86bm8=' },
      body: { padding: 'x'.repeat(900) },
    });
    expect(small.status).toBe(401);
  });
});
