import { randomUUID } from 'node:crypto';
import { adminCreate, http, startGateway } from '@workline/testing';

type Gateway = Awaited<ReturnType<typeof startGateway>>;

const LIMIT = 3;
const rateHeaders = (headers: Headers) => ({
  limit: headers.get('x-ratelimit-limit'),
  remaining: headers.get('x-ratelimit-remaining'),
  reset: Number(headers.get('x-ratelimit-reset')),
  retryAfter: headers.get('retry-after'),
});

const basicOf = (username: string, password: string) => `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;

describe('per-credential rate limits and body limits (own gateways with low limits)', () => {
  let gateway: Gateway;
  let unlimited: Gateway;
  let apiKey: string;
  let account: { id: string; username: string; password: string };
  let newKey: () => Promise<string>;

  beforeAll(async () => {
    account = await adminCreate<{ id: string; username: string; password: string }>('/accounts', { name: 'Rate Limited Inc' });
    const workstream = await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name: 'WS', use_cases: [] });
    newKey = async () => (await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {})).key;
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
      const answer = await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': apiKey } });
      expect(answer.status).toBe(200);
      seen.push(rateHeaders(answer.headers));
    }
    expect(seen.map((h) => h.remaining)).toEqual(['2', '1', '0']);
    for (const h of seen) {
      expect(h.limit).toBe(String(LIMIT));
      expect(h.reset).toBeGreaterThanOrEqual(1);
      expect(h.reset).toBeLessThanOrEqual(60);
      expect(h.retryAfter).toBeNull();
    }
    const refused = await http<{ message: string }>('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': apiKey } });
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded; retry in \d+ s$/) });
    const h = rateHeaders(refused.headers);
    expect(h).toMatchObject({ limit: '3', remaining: '0' });
    expect(Number(h.retryAfter)).toBe(h.reset);
    expect(h.reset).toBeGreaterThanOrEqual(1);
    expect(h.reset).toBeLessThanOrEqual(60);
    // A refused request is not counted: the key stays refused until its earlier requests age out.
    const stillRefused = await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': apiKey } });
    expect(stillRefused.status).toBe(429);
  });

  it('keeps one budget per principal and per API group', async () => {
    const [first, second] = await Promise.all([newKey(), newKey()]);
    for (let i = 0; i < LIMIT; i++)
      expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': first } })).status).toBe(200);
    expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': first } })).status).toBe(429);
    // Another key has its budget, and so has an account on each platform API version.
    const other = await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-api-key': second } });
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-remaining')).toBe('2');
    const basic = { authorization: basicOf(account.username, account.password) };
    for (let i = 0; i < LIMIT; i++) expect((await http('GET', `${gateway.url}/v4/lines`, { headers: basic })).status).toBe(200);
    expect((await http('GET', `${gateway.url}/v4/lines`, { headers: basic })).status).toBe(429);
    const otherGroup = await http('GET', `${gateway.url}/v3/tasks/nothing`, { headers: basic });
    expect(otherGroup.status).not.toBe(429);
    expect(otherGroup.headers.get('x-ratelimit-remaining')).toBe('2');
  });

  it('counts a principal however its credential is spelled: 300 re-spellings of an exhausted Authorization header all get 429', async () => {
    const fresh = await adminCreate<{ username: string; password: string }>('/accounts', { name: 'Respelled Inc' });
    const encoded = Buffer.from(`${fresh.username}:${fresh.password}`).toString('base64');
    const worker = await adminCreate<{ token: string }>('/workers', { email: `respelled.${randomUUID()}@example.com`, name: 'Respelled' });
    /** The scheme in one of 32 letter cases, then 1 to 10 spaces: 320 spellings the gateway reads as the same credential. */
    const spelling = (scheme: string, i: number, value: string) =>
      `${[...scheme].map((letter, bit) => ((i >> bit) & 1 ? letter.toUpperCase() : letter.toLowerCase())).join('')}${' '.repeat(1 + (Math.floor(i / 32) % 10))}${value}`;
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
  });

  it('counts failed authentications against the client address, whatever credential they try', async () => {
    const client = { 'x-forwarded-for': `198.18.${Math.floor(Math.random() * 250)}.7` };
    for (let i = 0; i < LIMIT; i++)
      expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { ...client, 'x-api-key': `wlk_${randomUUID()}` } })).status).toBe(
        401,
      );
    expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { ...client, 'x-api-key': `wlk_${randomUUID()}` } })).status).toBe(
      429,
    );
    // A right key from that address is counted against its own budget.
    expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { ...client, 'x-api-key': await newKey() } })).status).toBe(200);
  });

  it("answers 429 in each API group's error shape", async () => {
    const exhaust = async (method: string, path: string, headers: Record<string, string>) => {
      for (let i = 0; i < LIMIT; i++) await http(method, `${gateway.url}${path}`, { headers });
      return http<Record<string, unknown>>(method, `${gateway.url}${path}`, { headers });
    };
    const v4 = await exhaust('GET', '/v4/runs/nothing', { authorization: `Basic ${randomUUID()}` });
    expect(v4.status).toBe(429);
    expect(v4.body).toEqual({ message: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded/) });
    const v3 = await exhaust('GET', '/v3/tasks/nothing', { authorization: `Basic ${randomUUID()}` });
    expect(v3.status).toBe(429);
    expect(v3.body).toEqual({ status: 429, error: expect.stringMatching(/^Rate limit of 3 requests per minute exceeded/) });
    // Still a v3 answer: marked deprecated like every other.
    expect(v3.headers.get('deprecation')).toBe('true');
    expect(v3.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    const admin = await exhaust('GET', '/admin/v1/api-keys', { authorization: `Bearer ${randomUUID()}` });
    expect(admin.status).toBe(429);
    expect(admin.body).toEqual({ message: expect.stringMatching(/^Rate limit/) });
    expect(admin.headers.get('retry-after')).toMatch(/^\d+$/);
  });

  it('counts requests without a credential by client address', async () => {
    const client = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const headers = { 'x-forwarded-for': client };
    for (let i = 0; i < LIMIT; i++) expect((await http('GET', `${gateway.url}/v1/api-key`, { headers })).status).toBe(401);
    expect((await http('GET', `${gateway.url}/v1/api-key`, { headers })).status).toBe(429);
    expect((await http('GET', `${gateway.url}/v1/api-key`, { headers: { 'x-forwarded-for': '198.19.0.1' } })).status).toBe(401);
  });

  it('leaves health checks unlimited, and a limit of 0 switches a group off', async () => {
    for (let i = 0; i < LIMIT + 2; i++) {
      const health = await http('GET', `${gateway.url}/health`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    }
    const key = `wlk_${randomUUID()}`;
    for (let i = 0; i < LIMIT + 2; i++) {
      const answer = await http('GET', `${unlimited.url}/v1/api-key`, { headers: { 'x-api-key': key } });
      expect(answer.status).toBe(401);
      expect(answer.headers.get('x-ratelimit-limit')).toBeNull();
    }
  });

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
