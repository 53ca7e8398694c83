import {
  adminCreate,
  adminHeaders,
  createOversightTenant,
  createPlatformAccount,
  eventually,
  freePort,
  http,
  newWorkerToken,
  qualityReview,
  startAppInstance,
  startGateway,
  uploadImage,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

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
    // Gateway A copies the task quota limits to Redis only at start: the copy every TASK_QUOTA_SYNC_SECONDS is the one
    // round trip it would make of its own accord, and its round trips are counted below.
    [gatewayA, gatewayB] = await Promise.all([startGateway({ TASK_QUOTA_SYNC_SECONDS: '3600' }), startGateway()]);
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

  /**
   * What gateway A sends to Redis and PostgreSQL while `send` runs: its redis_round_trips_total and
   * auth_identity_lookups_total before and after. Exact, not a bound: gateway A serves this file's requests only
   * (it is its own process), they are sent one at a time (each answered before the next is sent, so no two share
   * an event-loop turn and with it a pipeline: concurrency cannot merge round trips), scraping /metrics costs no
   * round trip, and nothing else on gateway A talks to Redis meanwhile (the quota limits copy runs at start only).
   */
  async function costOf(send: () => Promise<unknown>): Promise<{ roundTrips: number; lookups: number }> {
    const read = () =>
      Promise.all([counter(gatewayA.url, 'redis_round_trips_total'), counter(gatewayA.url, 'auth_identity_lookups_total')]);
    const [roundTrips, lookups] = await read();
    await send();
    const [roundTripsAfter, lookupsAfter] = await read();
    return { roundTrips: roundTripsAfter - roundTrips, lookups: lookupsAfter - lookups };
  }

  /**
   * Measures until a run sees no identity lookup: a revocation, rotation or reset by another file changes the
   * identity epoch, and the requests after it miss the cache once (a miss costs more: the next test).
   */
  async function withEveryPrincipalCached<T extends { lookups: number }>(measure: () => Promise<T>): Promise<T> {
    for (let run = 1; run <= 5; run++) {
      const measured = await measure();
      if (measured.lookups === 0) return measured;
    }
    throw new Error('identities changed during each of 5 runs: no run was served from the cache throughout');
  }

  it('costs one Redis round trip per authenticated request of every API group once its principal is cached', async () => {
    const base = gatewayA.url;
    const tenant = await createOversightTenant('Round trips Inc', { useCases: [{ id: 'uc', task_definition_ids: ['td'] }] });
    const platform = await createPlatformAccount();
    const worker = { authorization: `Bearer ${await newWorkerToken()}` };
    const v1 = { 'x-api-key': tenant.key };
    const admin = adminHeaders();
    /** A request to gateway A, answered with `status` (so served: no 401 or 429 passes); its body. */
    const served = async <T = unknown>(method: string, path: string, headers: Record<string, string>, status = 200, body?: unknown) => {
      const answer = await http<T>(method, `${base}${path}`, { headers, body });
      expect([method, path, answer.status]).toEqual([method, path, status]);
      return answer.body;
    };
    let taskId = '';
    let runId = '';
    let batchId = '';
    // The calls each API group's clients make most (the later ones read what the first made).
    const groups: Record<string, (() => Promise<unknown>)[]> = {
      'v1 (x-api-key)': [
        () => served('GET', '/v1/api-key', v1),
        () => {
          const review = qualityReview(tenant.workstreamId, randomUUID(), 'ann@example.com', 0.9, undefined);
          return served('POST', `/v1/workstreams/${tenant.workstreamId}/task_reviewed`, v1, 202, review);
        },
        async () => {
          // The upload goes through the stack's gateway: only the task creation is gateway A's.
          const body = { media_key: await uploadImage(tenant), configuration_id: tenant.configurationId };
          taskId = (await served<{ task_id: string }>('POST', '/v1/tasks', v1, 201, body)).task_id;
        },
        () => served('GET', `/v1/tasks/${taskId}`, v1),
        () => served('GET', '/v1/deliveries', v1),
      ],
      'v4 (Basic)': [
        () => served('GET', '/v4/lines', platform.auth),
        async () => {
          const body = { line_id: platform.lineId, units: [{ n: 1 }] };
          runId = (await served<{ id: string }>('POST', '/v4/runs', platform.auth, 201, body)).id;
        },
        () => served('GET', `/v4/runs/${runId}`, platform.auth),
      ],
      'v3 (Basic)': [
        async () => {
          const body = { template_id: platform.lineId, resources: [{ n: 1 }] };
          batchId = (await served<{ task_id: string }>('POST', '/v3/tasks', platform.auth, 200, body)).task_id;
        },
        () => served('GET', `/v3/tasks/${batchId}`, platform.auth),
      ],
      'work (worker token)': [
        async () => {
          // The worker's own line's units only (the runs above): other files' queues are left alone.
          const leased = await served<{ assignment_id: string }>('POST', '/workforce/v1/assignments/next', worker, 200, {
            kind: 'unit',
            line_id: platform.lineId,
          });
          await served('POST', `/workforce/v1/assignments/${leased.assignment_id}/complete`, worker, 200, { output: { ok: true } });
        },
        () => served('POST', '/workforce/v1/assignments/next', worker, 422, { kind: 'nothing' }),
      ],
      'admin (admin token)': [
        () => served('GET', `/admin/v1/tasks?workstream_id=${tenant.workstreamId}`, admin),
        () => served('GET', `/admin/v1/runs?line_id=${platform.lineId}`, admin),
        () => served('GET', `/admin/v1/api-keys?account_id=${tenant.accountId}`, admin),
        () => served('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/quality`, admin),
      ],
    };
    const calls = Object.values(groups).flat();
    // Each credential's first use looks it up (and the later calls need the task, run and batch made by the first).
    for (const call of calls) await call();
    const rounds = 3;
    const measured = await withEveryPrincipalCached(async () => {
      const perGroup: Record<string, { requests: number; roundTrips: number }> = {};
      let lookups = 0;
      for (const [group, groupCalls] of Object.entries(groups)) {
        // A work call is two requests (lease, complete); the upload of a task creation is the stack gateway's.
        const requests = rounds * groupCalls.length + (group.startsWith('work') ? rounds : 0);
        const cost = await costOf(async () => {
          for (let round = 0; round < rounds; round++) for (const call of groupCalls) await call();
        });
        perGroup[group] = { requests, roundTrips: cost.roundTrips };
        lookups += cost.lookups;
      }
      return { perGroup, lookups };
    });
    // One each: the identity epoch, the failed-auth bucket (Basic, admin token), the rate limit and the task quota in one pipeline.
    for (const [group, { requests, roundTrips }] of Object.entries(measured.perGroup)) {
      expect({ group, roundTripsPerRequest: roundTrips / requests }).toEqual({ group, roundTripsPerRequest: 1 });
    }
  });

  it(
    'costs more round trips only where a request must wait on Redis again: a cache miss, a refused credential, an ' +
      'identity change, a quota given back',
    async () => {
      const base = gatewayA.url;
      const { id, key } = await newKey();
      // A miss: the epoch is read before the lookup (so a change committed meanwhile is seen), the rate limit after it.
      expect(await costOf(() => describeKey(base, key))).toEqual({ roundTrips: 2, lookups: 1 });
      const worker = { authorization: `Bearer ${await newWorkerToken()}` };
      const next = () => http('POST', `${base}/workforce/v1/assignments/next`, { headers: worker, body: { kind: 'nothing' } });
      expect(await costOf(next)).toEqual({ roundTrips: 2, lookups: 1 });
      // A password: also a failed-auth slot reserved before its scrypt and given back after it.
      const login = await adminCreate<{ username: string; password: string }>('/accounts', { name: 'Round trip login' });
      expect(await costOf(() => http('GET', `${base}/v4/lines`, { headers: basic(login.username, login.password) }))).toEqual({
        roundTrips: 4,
        lookups: 1,
      });
      // A revocation: the admin call's own round trip, then the announcement (the new epoch) after the commit.
      expect((await costOf(() => http('DELETE', `${base}/admin/v1/api-keys/${id}`, { headers: adminHeaders() }))).roundTrips).toBe(2);
      // A refused credential: the epoch, the failure counted against the address, the address's rate limit.
      expect(await costOf(() => describeKey(base, key))).toEqual({ roundTrips: 3, lookups: 1 });

      // A task creation replayed under its Idempotency-Key: its quota unit counted with the authentication is given back after.
      const tenant = await createOversightTenant('Round trips replay');
      const create = { media_key: await uploadImage(tenant), configuration_id: tenant.configurationId };
      const headers = { 'x-api-key': tenant.key, 'idempotency-key': `replay-${randomUUID()}` };
      const createTask = async () => expect((await http('POST', `${base}/v1/tasks`, { headers, body: create })).status).toBe(201);
      await createTask();
      expect((await withEveryPrincipalCached(() => costOf(createTask))).roundTrips).toBe(2);
    },
  );

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

  it(
    'without Redis: serves right credentials unlimited, creates tasks without counting them, trusts no cached ' +
      'principal, and refuses identity changes it cannot announce',
    async () => {
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
          message:
            `The revocation of API key ${other.id} is stored, ` + 'but the gateways could not be told (Redis unavailable): retry the call',
        });
        expect((await http('DELETE', `${gatewayA.url}/admin/v1/api-keys/${other.id}`, { headers: adminHeaders() })).status).toBe(204);
      } finally {
        await isolated.stop();
      }
    },
  );
});
