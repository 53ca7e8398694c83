import {
  adminCreate,
  adminHeaders,
  createOversightTenant,
  eventually,
  freePort,
  http,
  startAppInstance,
  startGateway,
  uploadImage,
} from '@workline/testing';

type Gateway = Awaited<ReturnType<typeof startGateway>>;

interface Key {
  id: string;
  key: string;
}

/** A counter of a gateway's /metrics (summed over its labels). */
async function counter(base: string, name: string): Promise<number> {
  const metrics = await http('GET', `${base}/metrics`);
  return [...metrics.text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\d+)`, 'gm'))].reduce((sum, match) => sum + Number(match[1]), 0);
}

const basic = (username: string, password: string) => ({
  authorization: `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`,
});

describe('cached principals: one Redis round trip per request, and every identity change effective at once on every gateway', () => {
  let gatewayA: Gateway;
  let gatewayB: Gateway;
  let accountId: string;
  let workstreamId: string;
  const gateways = () => [gatewayA.url, gatewayB.url];

  const describeKey = (base: string, key: string) =>
    http<{ message?: string }>('GET', `${base}/v1/api-key`, { headers: { 'x-api-key': key } });
  const newKey = () => adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
  /** Uses the key on both gateways, so both have it cached. */
  const warm = async (key: string) => {
    for (const base of gateways()) expect((await describeKey(base, key)).status).toBe(200);
  };

  beforeAll(async () => {
    accountId = (await adminCreate<{ id: string }>('/accounts', { name: 'Cached Inc' })).id;
    workstreamId = (await adminCreate<{ id: string }>('/workstreams', { account_id: accountId, name: 'WS', use_cases: [] })).id;
    [gatewayA, gatewayB] = await Promise.all([startGateway(), startGateway()]);
  });

  afterAll(async () => {
    await Promise.all([gatewayA?.stop(), gatewayB?.stop()]);
  });

  it('looks a verified key, worker and login up once, then serves them from the cache', async () => {
    const { key } = await newKey();
    const account = await adminCreate<{ username: string; password: string }>('/accounts', { name: 'Cached Login Inc' });
    const worker = await adminCreate<{ token: string }>('/workers', { email: `cached.${Date.now()}@example.com`, name: 'Cached' });
    const work = () =>
      http('POST', `${gatewayA.url}/workforce/v1/assignments/next`, {
        headers: { authorization: `Bearer ${worker.token}` },
        body: { kind: 'nothing' },
      });
    expect((await describeKey(gatewayA.url, key)).status).toBe(200);
    expect((await http('GET', `${gatewayA.url}/v4/lines`, { headers: basic(account.username, account.password) })).status).toBe(200);
    expect((await work()).status).toBe(422);
    const [lookups, checks] = [
      await counter(gatewayA.url, 'auth_identity_lookups_total'),
      await counter(gatewayA.url, 'auth_password_checks_total'),
    ];
    for (let i = 0; i < 10; i++) {
      expect((await describeKey(gatewayA.url, key)).status).toBe(200);
      expect((await http('GET', `${gatewayA.url}/v4/lines`, { headers: basic(account.username, account.password) })).status).toBe(200);
      expect((await work()).status).toBe(422);
    }
    expect(await counter(gatewayA.url, 'auth_identity_lookups_total')).toBe(lookups);
    expect(await counter(gatewayA.url, 'auth_password_checks_total')).toBe(checks);
  });

  it('refuses a key revoked through gateway A on gateway B at once, and the other way round', async () => {
    for (const [admin, elsewhere] of [
      [gatewayA.url, gatewayB.url],
      [gatewayB.url, gatewayA.url],
    ]) {
      const { id, key } = await newKey();
      await warm(key);
      expect((await http('DELETE', `${admin}/admin/v1/api-keys/${id}`, { headers: adminHeaders() })).status).toBe(204);
      const refused = await describeKey(elsewhere, key);
      expect([refused.status, refused.body]).toEqual([401, { message: 'Invalid x-api-key' }]);
      expect((await describeKey(admin, key)).status).toBe(401);
    }
  });

  it("ends a rotation's overlap on every gateway at once", async () => {
    const old = await newKey();
    await warm(old.key);
    const rotated = await http<Key>('POST', `${gatewayA.url}/admin/v1/api-keys/${old.id}/rotate`, {
      headers: adminHeaders(),
      body: { overlap_seconds: 0 },
    });
    expect(rotated.status).toBe(201);
    for (const base of gateways()) {
      expect((await describeKey(base, old.key)).status).toBe(401);
      expect((await describeKey(base, rotated.body.key)).status).toBe(200);
    }
  });

  it('stops a reset password on every gateway at once, even where it was cached', async () => {
    const account = await adminCreate<{ id: string; username: string; password: string }>('/accounts', { name: 'Reset Inc' });
    for (const base of gateways())
      expect((await http('GET', `${base}/v4/lines`, { headers: basic(account.username, account.password) })).status).toBe(200);
    const reset = await http<{ password: string }>('POST', `${gatewayB.url}/admin/v1/accounts/${account.id}/credentials/reset`, {
      headers: adminHeaders(),
    });
    expect(reset.status).toBe(200);
    for (const base of gateways()) {
      const old = await http('GET', `${base}/v4/lines`, { headers: basic(account.username, account.password) });
      expect([old.status, old.body]).toEqual([401, { message: 'Bad credentials' }]);
      expect((await http('GET', `${base}/v4/lines`, { headers: basic(account.username, reset.body.password) })).status).toBe(200);
    }
  });

  it('without Redis: serves right credentials unlimited, creates tasks without counting them, trusts no cached principal, and refuses identity changes it cannot announce', async () => {
    // A gateway whose Redis is a closed port: limits fail open, and no cache entry can be checked against the epoch.
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const isolated = startAppInstance(
      'gateway',
      { PORT: String(port), PUBLIC_URL: url, REDIS_URL: `redis://127.0.0.1:${await freePort()}/0` },
      `gateway-no-redis-${port}`,
    );
    try {
      await eventually(async () => (await fetch(`${url}/health/live`).catch(() => undefined))?.status === 200 || undefined, {
        what: 'the gateway without Redis to answer',
        timeoutMs: 60_000,
        intervalMs: 250,
      });
      const { id, key } = await newKey();
      for (let i = 0; i < 3; i++) {
        const served = await describeKey(url, key);
        expect(served.status).toBe(200);
        expect(served.headers.get('x-ratelimit-limit')).toBeNull();
      }
      // The task quota fails open like the rate limits: the creation is served, not counted.
      const tenant = await createOversightTenant('No Redis quota');
      const created = await http<{ task_id: string }>('POST', `${url}/v1/tasks`, {
        headers: { 'x-api-key': tenant.key },
        body: { media_key: await uploadImage(tenant), configuration_id: tenant.configurationId },
      });
      expect([created.status, created.body.task_id]).toEqual([201, expect.stringMatching(/\S/)]);
      expect((await http('DELETE', `${gatewayA.url}/admin/v1/api-keys/${id}`, { headers: adminHeaders() })).status).toBe(204);
      expect((await describeKey(url, key)).status).toBe(401);

      const other = await newKey();
      const unannounced = await http('DELETE', `${url}/admin/v1/api-keys/${other.id}`, { headers: adminHeaders() });
      expect(unannounced.status).toBe(503);
      expect(unannounced.body).toEqual({
        message: `The revocation of API key ${other.id} is stored, but the gateways could not be told (Redis unavailable): retry the call`,
      });
      expect((await http('DELETE', `${gatewayA.url}/admin/v1/api-keys/${other.id}`, { headers: adminHeaders() })).status).toBe(204);
    } finally {
      await isolated.stop();
    }
  });
});
