import type { Schemas } from '@workline/client';
import {
  adminClient,
  apiClient,
  eventually,
  fieldErrors,
  http,
  newWorkerToken,
  ok,
  stackLogs,
  startGateway,
  testStack,
  withStatus,
} from '@workline/testing';

type Key = Schemas['NewApiKeyAnswer'];
const admin = adminClient();

const randomSource = () => `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
/**
 * The second gateway trusts X-Forwarded-For and has a low failed-authentication limit; failures counted for
 * 127.0.0.1 by other test files must not block this file's requests, so they come from an address of their own.
 */
const thisClient = randomSource();
/** auth_password_checks_total of a gateway: how many scrypt checks it ran. */
const passwordChecks = async (base: string) => {
  const metrics = (await apiClient({}, base).GET('/metrics', { parseAs: 'text' })).data ?? '';
  return Number(/^auth_password_checks_total (\d+)/m.exec(metrics)?.[1] ?? NaN);
};
const describeKey = (key: string, base?: string) =>
  withStatus(apiClient({ apiKey: key }, base).GET('/v1/api-key', { headers: { 'x-forwarded-for': thisClient } }));
/** A new key of the workstream (admin API). */
const newWorkstreamKey = (workstream_id: string): Promise<Key> =>
  ok(admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: { path: { workstream_id } }, body: {} }), 201);
/** The keys the admin API lists for an account or a workstream. */
const listKeys = async (query: { account_id?: string; workstream_id?: string }) =>
  ok(admin.GET('/admin/v1/api-keys', { params: { query } }), 200);

describe('identity lifecycle: project keys, listing, revocation, rotation, brute force, v3 deprecation', () => {
  const secrets: string[] = [testStack().adminToken];
  let accountId: string;
  let username: string;
  let password: string;
  let workstreamId: string;
  let other: Awaited<ReturnType<typeof startGateway>>;

  beforeAll(async () => {
    const account = await ok(admin.POST('/admin/v1/accounts', { body: { name: 'Lifecycle Inc' } }), 201);
    accountId = account.id;
    username = account.username;
    password = account.password;
    secrets.push(account.password);
    workstreamId = (await ok(admin.POST('/admin/v1/workstreams', { body: { account_id: accountId, name: 'WS', use_cases: [] } }), 201)).id;
    // A second gateway: trusts X-Forwarded-For (so a test can act as another client address), a low failed-auth
    // limit, /v3 switched off, and debug logs (for the secrets-in-logs check).
    other = await startGateway({
      TRUST_PROXY: '1',
      AUTH_FAILURE_LIMIT: '5',
      AUTH_FAILURE_WINDOW_SECONDS: '60',
      V3_ENABLED: 'false',
      LOG_LEVEL: 'debug',
    });
  });

  afterAll(async () => {
    await other?.stop();
  });

  const newAccount = async () => {
    const account = await ok(admin.POST('/admin/v1/accounts', { body: { name: 'Guessed Inc' } }), 201);
    secrets.push(account.password);
    return account;
  };
  /** GET /v4/lines with HTTP Basic, as the client address `address` (on the second gateway unless another). */
  const linesFrom = (address: string, user: string, pass: string, base = other.url) =>
    withStatus(
      apiClient({ basic: { username: user, password: pass } }, base).GET('/v4/lines', { headers: { 'x-forwarded-for': address } }),
    );

  it('issues project-level keys valid for the whole account, and workstream keys limited to their workstream', async () => {
    const projectKey = (account_id: string) =>
      withStatus(admin.POST('/admin/v1/accounts/{account_id}/api-keys', { params: { path: { account_id } }, body: {} }));
    const project = await ok(projectKey(accountId), 201);
    const workstream = await newWorkstreamKey(workstreamId);
    secrets.push(project.key, workstream.key);
    expect(project).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wlk_/) });
    expect((await describeKey(project.key)).data).toEqual({ id: project.id, scope: 'account', account_id: accountId, workstream_id: null });
    expect((await describeKey(workstream.key)).data).toEqual({
      id: workstream.id,
      scope: 'workstream',
      account_id: accountId,
      workstream_id: workstreamId,
    });
    expect((await projectKey('no-such-account')).status).toBe(404);
  });

  it('lists keys without their secrets, with last use', async () => {
    const { key, id } = await newWorkstreamKey(workstreamId);
    secrets.push(key);
    expect((await describeKey(key)).status).toBe(200);
    const listed = await eventually(
      async () => {
        const keys = await listKeys({ account_id: accountId });
        const row = keys.find((k) => k.id === id);
        return row?.last_used_at ? keys : undefined;
      },
      { what: 'last_used_at to be recorded' },
    );
    const row = listed.find((k) => k.id === id)!;
    expect(row).toEqual({
      id,
      scope: 'workstream',
      account_id: accountId,
      workstream_id: workstreamId,
      prefix: key.slice(0, 8),
      created_at: expect.any(String),
      last_used_at: expect.any(String),
      revoked_at: null,
      expires_at: null,
      rotated_from_id: null,
    });
    expect(JSON.stringify(listed)).not.toContain(key);
    const byWorkstream = await listKeys({ workstream_id: workstreamId });
    expect(byWorkstream.length).toBeGreaterThan(0);
    expect(byWorkstream.every((k) => k.workstream_id === workstreamId)).toBe(true);
    expect((await apiClient().GET('/admin/v1/api-keys')).response.status).toBe(401);
  });

  it('revokes a key at once, on every gateway instance', async () => {
    const { key, id } = await newWorkstreamKey(workstreamId);
    secrets.push(key);
    expect((await describeKey(key, other.url)).status).toBe(200);
    const revoke = (key_id: string) => admin.DELETE('/admin/v1/api-keys/{key_id}', { params: { path: { key_id } } });
    const revoked = await revoke(id);
    expect(revoked.response.status).toBe(204);
    expect(revoked.data).toBeUndefined();
    for (const base of [undefined, other.url]) {
      const refused = await describeKey(key, base);
      expect(refused.status).toBe(401);
      expect(refused.error).toEqual({ message: 'Invalid x-api-key' });
    }
    expect((await revoke(id)).response.status).toBe(204);
    expect((await revoke('no-such-key')).response.status).toBe(404);
    const listed = await listKeys({ account_id: accountId });
    expect(listed.find((k) => k.id === id)?.revoked_at).toEqual(expect.any(String));
  });

  it('rotates a key: the old one works during the overlap, then stops while requests keep flowing', async () => {
    const old = await newWorkstreamKey(workstreamId);
    const rotated = await ok(
      admin.POST('/admin/v1/api-keys/{key_id}/rotate', { params: { path: { key_id: old.id } }, body: { overlap_seconds: 3 } }),
      201,
    );
    secrets.push(old.key, rotated.key);
    expect(rotated.id).not.toBe(old.id);
    expect((await describeKey(rotated.key)).data).toMatchObject({ id: rotated.id, scope: 'workstream', workstream_id: workstreamId });

    const seen: number[] = [];
    await eventually(
      async () => {
        const [oldAnswer, newAnswer] = await Promise.all([describeKey(old.key), describeKey(rotated.key, other.url)]);
        expect(newAnswer.status).toBe(200);
        seen.push(oldAnswer.status);
        return oldAnswer.status === 401 || undefined;
      },
      { what: 'the overlap to end', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(seen[0]).toBe(200);
    expect(seen.at(-1)).toBe(401);
    expect((await describeKey(old.key, other.url)).status).toBe(401);
    expect((await describeKey(rotated.key)).status).toBe(200);

    const listed = await listKeys({ workstream_id: workstreamId });
    expect(listed.find((k) => k.id === rotated.id)?.rotated_from_id).toBe(old.id);
    expect(listed.find((k) => k.id === old.id)?.expires_at).toEqual(expect.any(String));
  });

  it(
    'replays a rotation retried with the same Idempotency-Key: ' + 'one new key, also for concurrent retries and after the overlap',
    async () => {
      const old = await newWorkstreamKey(workstreamId);
      secrets.push(old.key);
      const rotate = (key: string, body: Schemas['RotateApiKeyDto'] = { overlap_seconds: 0 }) =>
        withStatus(
          admin.POST('/admin/v1/api-keys/{key_id}/rotate', {
            params: { path: { key_id: old.id }, header: { 'Idempotency-Key': key } },
            body,
          }),
        );
      // A lost answer retried at once, five times over: the overlap of 0 expires the old key with the first
      // commit, so a retry that looked before it must still answer the winner's key, not a 409.
      const answers = await Promise.all(Array.from({ length: 5 }, () => rotate('rotation-1')));
      expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
      const first = answers[0].data!;
      secrets.push(first.key);
      for (const answer of answers) expect(answer.data).toEqual({ id: first.id, key: first.key });
      expect(answers.filter((a) => a.response.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
      expect((await describeKey(first.key)).data).toMatchObject({ id: first.id, workstream_id: workstreamId });

      // Later, with the old key long expired: still the same answer.
      const later = await rotate('rotation-1');
      expect(later.status).toBe(201);
      expect(later.response.headers.get('idempotent-replayed')).toBe('true');
      expect(later.data).toEqual(first);

      // The same key with another body: 422 naming the header; a malformed key: 422; nothing created by either.
      const reused = await rotate('rotation-1', { overlap_seconds: 60 });
      expect(reused.status).toBe(422);
      expect(reused.error).toMatchObject({
        message: expect.stringContaining('Idempotency-Key "rotation-1" was already used with another request'),
      });
      const malformed = await rotate('\u00e9t\u00e9');
      expect(malformed.status).toBe(422);
      expect(malformed.error).toMatchObject({
        message: expect.stringContaining('Idempotency-Key header must be 1 to 255 printable ASCII characters'),
      });
      // A new key for a new rotation of the expired key: the 409 of any rotation of an expired key.
      expect((await rotate('rotation-2')).status).toBe(409);

      const listed = await listKeys({ workstream_id: workstreamId });
      expect(listed.filter((k) => k.rotated_from_id === old.id).map((k) => k.id)).toEqual([first.id]);
    },
  );

  it('refuses bad rotations', async () => {
    const { id, key } = await newWorkstreamKey(workstreamId);
    secrets.push(key);
    const rotate = (key_id: string, body: Schemas['RotateApiKeyDto']) =>
      withStatus(admin.POST('/admin/v1/api-keys/{key_id}/rotate', { params: { path: { key_id } }, body }));
    for (const body of [{ overlap_seconds: -1 }, { overlap_seconds: 8 * 24 * 3600 }]) {
      const result = await rotate(id, body);
      expect(result.status).toBe(422);
      expect(fieldErrors(result)?.[0].field).toBe('overlap_seconds');
    }
    // No overlap_seconds, or not a number: raw http(), which the typed client would not send.
    for (const body of [{}, { overlap_seconds: 'soon' }]) {
      const result = await http<{ errors: { field: string }[] }>('POST', `/admin/v1/api-keys/${id}/rotate`, {
        headers: { authorization: `Bearer ${testStack().adminToken}` },
        body,
      });
      expect(result.status).toBe(422);
      expect(result.body.errors[0].field).toBe('overlap_seconds');
    }
    expect((await rotate('no-such-key', { overlap_seconds: 0 })).status).toBe(404);
    await admin.DELETE('/admin/v1/api-keys/{key_id}', { params: { path: { key_id: id } } });
    const revoked = await rotate(id, { overlap_seconds: 0 });
    expect(revoked.status).toBe(409);
    expect(revoked.error).toEqual({ message: `API key ${id} is revoked and cannot be rotated` });
  });

  it('resets the account password: the old one stops at once on every instance, the new one works', async () => {
    const lines = (user: string, pass: string, base = testStack().gatewayUrl) => linesFrom(thisClient, user, pass, base);
    // Used before the reset on both instances, so each has verified (and remembered) the old password.
    expect((await lines(username, password)).status).toBe(200);
    expect((await lines(username, password, other.url)).status).toBe(200);
    const resetOf = (account_id: string) =>
      withStatus(admin.POST('/admin/v1/accounts/{account_id}/credentials/reset', { params: { path: { account_id } } }));
    const reset = await resetOf(accountId);
    expect(reset.status).toBe(200);
    expect(reset.data).toEqual({ id: accountId, username: expect.any(String), password: expect.any(String) });
    const renewed = reset.data!;
    expect(renewed.username).toBe(username);
    expect(secrets).not.toContain(renewed.password);
    secrets.push(renewed.password);
    for (const base of [testStack().gatewayUrl, other.url]) {
      const old = await lines(username, password, base);
      expect([old.status, old.error]).toEqual([401, { message: 'Bad credentials' }]);
      expect((await lines(username, renewed.password, base)).status).toBe(200);
    }
    expect((await resetOf('no-such-account')).status).toBe(404);
  });

  it('answers 429 past the limit of wrong API keys from one address, yet serves a right key from it (keys cannot be guessed)', async () => {
    const { key } = await newWorkstreamKey(workstreamId);
    secrets.push(key);
    const attacker = randomSource();
    const keyFrom = (apiKey: string) =>
      withStatus(apiClient({ apiKey }, other.url).GET('/v1/api-key', { headers: { 'x-forwarded-for': attacker } }));
    for (let i = 0; i < 5; i++) expect((await keyFrom(`wlk_guess_${i}`)).status).toBe(401);
    const blocked = await keyFrom('wlk_guess_more');
    expect(blocked.status).toBe(429);
    expect(Number(blocked.response.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.error?.message).toMatch(/^Too many failed authentications from this address; retry in \d+ s$/);
    // Behind a proxy with TRUST_PROXY=0 every client has this address: a right key still works.
    expect((await keyFrom(key)).status).toBe(200);
    // Other credential families have buckets of their own.
    const account = await newAccount();
    expect((await linesFrom(attacker, account.username, account.password)).status).toBe(200);
  });

  it('refuses the admin token from an address past its limit of wrong admin tokens, even when right (it may be guessable)', async () => {
    const attacker = randomSource();
    const from = { headers: { 'x-forwarded-for': attacker } };
    const wrong = apiClient({ bearer: 'x'.repeat(32) }, other.url);
    for (let i = 0; i < 5; i++) expect((await wrong.GET('/admin/v1/api-keys', from)).response.status).toBe(401);
    expect((await wrong.GET('/admin/v1/api-keys', from)).response.status).toBe(429);
    const right = adminClient(other.url);
    const blockedAdmin = await right.POST('/admin/v1/accounts', { ...from, body: { name: 'x' } });
    expect(blockedAdmin.response.status).toBe(429);
    expect((await right.GET('/admin/v1/api-keys', { headers: { 'x-forwarded-for': randomSource() } })).response.status).toBe(200);
  });

  it(
    'checks at most the limit of 300 concurrent wrong passwords for one account, ' + 'then locks that account (only) out from that address',
    async () => {
      const attacker = randomSource();
      const { username, password } = await newAccount();
      const checksBefore = await passwordChecks(other.url);
      const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => linesFrom(attacker, username, `wrong-${i}`)));
      const checks = (await passwordChecks(other.url)) - checksBefore;
      expect(checks).toBeGreaterThan(0);
      expect(checks).toBeLessThanOrEqual(5);
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 401).length).toBe(checks);
      expect(statuses.filter((status) => status === 429).length).toBe(300 - checks);
      expect(answers.find((answer) => answer.status === 429)?.error).toEqual({
        message: expect.stringMatching(/^Too many failed authentications from this address; retry in \d+ s$/),
      });
      // The right password from that address is refused too (else guessing would go on past the limit), without a check ...
      const locked = await linesFrom(attacker, username, password);
      expect(locked.status).toBe(429);
      expect(Number(locked.response.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(await passwordChecks(other.url)).toBe(checksBefore + checks);
      // ... while the account from any other address, and every other account from this one, are served.
      expect((await linesFrom(randomSource(), username, password)).status).toBe(200);
      // Now verified and cached by this gateway, the right password is still refused from the locked address.
      expect((await linesFrom(attacker, username, password)).status).toBe(429);
      const neighbour = await newAccount();
      expect((await linesFrom(attacker, neighbour.username, neighbour.password)).status).toBe(200);
    },
  );

  it('checks at most the limit of 300 concurrent logins with unknown usernames, and they lock out no real account', async () => {
    const attacker = randomSource();
    const checksBefore = await passwordChecks(other.url);
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => linesFrom(attacker, `nobody-${i}`, 'guess')));
    const checks = (await passwordChecks(other.url)) - checksBefore;
    expect(checks).toBeLessThanOrEqual(5);
    expect(answers.filter((answer) => answer.status === 401).length).toBe(checks);
    expect(answers.filter((answer) => answer.status === 429).length).toBe(300 - checks);
    const account = await newAccount();
    expect((await linesFrom(attacker, account.username, account.password)).status).toBe(200);
  });

  it('marks every /v3 response deprecated with Sunset and a Link to the migration notes; V3_ENABLED=false answers 410', async () => {
    const { response: served } = await apiClient().GET('/v3/tasks/{task_id}', { params: { path: { task_id: 'anything' } } });
    expect(served.headers.get('deprecation')).toBe('true');
    expect(served.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    const link = served.headers.get('link')!;
    expect(link).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/docs\/v3-migration\.md>; rel="deprecation"; type="text\/markdown"$/);
    const notesUrl = new URL(link.slice(1, link.indexOf('>')));
    expect(notesUrl.pathname).toBe('/docs/v3-migration.md');
    const notes = await apiClient({}, notesUrl.origin).GET('/docs/v3-migration.md', { parseAs: 'text' });
    expect(notes.response.status).toBe(200);
    expect(notes.data).toContain('# Migrating from the platform API v3 to v4');

    const elsewhere = apiClient({}, other.url);
    const withdrawn = await elsewhere.POST('/v3/tasks', { body: { template_id: 'x', resources: [{}] } });
    expect(withdrawn.response.status).toBe(410);
    expect(withdrawn.error).toEqual({ status: 410, error: expect.stringMatching(/^API version 3 has been withdrawn: use \/v4/) });
    expect(withdrawn.response.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    expect((await elsewhere.GET('/v4/lines')).response.status).not.toBe(410);
  });

  it('never writes a key, password or token into a log line', async () => {
    const token = await newWorkerToken();
    secrets.push(token);
    // A kind outside the documented enum: raw http(), which the typed client would not send.
    const refused = await http('POST', `${other.url}/workforce/v1/assignments/next`, {
      headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': thisClient },
      body: { kind: 'nothing' },
    });
    expect(refused.status).toBe(422);
    const logs = [...stackLogs().values()];
    expect(logs.join('').length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(logs.some((log) => log.includes(secret))).toBe(false);
    }
  });
});
