import { adminCreate, adminHeaders, eventually, http, startGateway, testStack } from '@workline/testing';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface Key {
  id: string;
  key: string;
}

const randomSource = () => `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
/**
 * The second gateway trusts X-Forwarded-For and has a low failed-authentication limit; failures counted for
 * 127.0.0.1 by other test files must not block this file's requests, so they come from an address of their own.
 */
const thisClient = randomSource();
/** auth_password_checks_total of a gateway: how many scrypt checks it ran. */
const passwordChecks = async (base: string) => {
  const metrics = await http('GET', `${base}/metrics`);
  return Number(/^auth_password_checks_total (\d+)/m.exec(metrics.text)?.[1] ?? NaN);
};
const describeKey = (key: string, base = '') =>
  http<{ id: string; scope: string; workstream_id: string | null }>('GET', `${base}/v1/api-key`, {
    headers: { 'x-api-key': key, 'x-forwarded-for': thisClient },
  });

describe('identity lifecycle: project keys, listing, revocation, rotation, brute force, v3 deprecation', () => {
  const secrets: string[] = [testStack().adminToken];
  let accountId: string;
  let username: string;
  let password: string;
  let workstreamId: string;
  let other: Awaited<ReturnType<typeof startGateway>>;

  beforeAll(async () => {
    const account = await adminCreate<{ id: string; username: string; password: string }>('/accounts', { name: 'Lifecycle Inc' });
    accountId = account.id;
    username = account.username;
    password = account.password;
    secrets.push(account.password);
    workstreamId = (await adminCreate<{ id: string }>('/workstreams', { account_id: accountId, name: 'WS', use_cases: [] })).id;
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
    const account = await adminCreate<{ username: string; password: string }>('/accounts', { name: 'Guessed Inc' });
    secrets.push(account.password);
    return account;
  };
  /** GET /v4/lines on the second gateway with HTTP Basic, as the client address `address`. */
  const linesFrom = (address: string, user: string, pass: string) =>
    http('GET', `${other.url}/v4/lines`, {
      headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`, 'x-forwarded-for': address },
    });

  it('issues project-level keys valid for the whole account, and workstream keys limited to their workstream', async () => {
    const project = await adminCreate<Key>(`/accounts/${accountId}/api-keys`, {});
    const workstream = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(project.key, workstream.key);
    expect(project).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wlk_/) });
    expect((await describeKey(project.key)).body).toEqual({ id: project.id, scope: 'account', account_id: accountId, workstream_id: null });
    expect((await describeKey(workstream.key)).body).toEqual({
      id: workstream.id,
      scope: 'workstream',
      account_id: accountId,
      workstream_id: workstreamId,
    });
    const unknown = await http('POST', '/admin/v1/accounts/no-such-account/api-keys', { headers: adminHeaders(), body: {} });
    expect(unknown.status).toBe(404);
  });

  it('lists keys without their secrets, with last use', async () => {
    const { key, id } = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(key);
    expect((await describeKey(key)).status).toBe(200);
    const listed = await eventually(
      async () => {
        const result = await http<Record<string, unknown>[]>('GET', `/admin/v1/api-keys?account_id=${accountId}`, {
          headers: adminHeaders(),
        });
        const row = result.body.find((k) => k.id === id);
        return row?.last_used_at ? result.body : undefined;
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
    const byWorkstream = await http<{ workstream_id: string }[]>('GET', `/admin/v1/api-keys?workstream_id=${workstreamId}`, {
      headers: adminHeaders(),
    });
    expect(byWorkstream.body.length).toBeGreaterThan(0);
    expect(byWorkstream.body.every((k) => k.workstream_id === workstreamId)).toBe(true);
    expect((await http('GET', '/admin/v1/api-keys')).status).toBe(401);
  });

  it('revokes a key at once, on every gateway instance', async () => {
    const { key, id } = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(key);
    expect((await describeKey(key, other.url)).status).toBe(200);
    const revoked = await http('DELETE', `/admin/v1/api-keys/${id}`, { headers: adminHeaders() });
    expect(revoked.status).toBe(204);
    expect(revoked.text).toBe('');
    for (const base of ['', other.url]) {
      const refused = await describeKey(key, base);
      expect(refused.status).toBe(401);
      expect(refused.body).toEqual({ message: 'Invalid x-api-key' });
    }
    expect((await http('DELETE', `/admin/v1/api-keys/${id}`, { headers: adminHeaders() })).status).toBe(204);
    expect((await http('DELETE', '/admin/v1/api-keys/no-such-key', { headers: adminHeaders() })).status).toBe(404);
    const listed = await http<{ id: string; revoked_at: string | null }[]>('GET', `/admin/v1/api-keys?account_id=${accountId}`, {
      headers: adminHeaders(),
    });
    expect(listed.body.find((k) => k.id === id)?.revoked_at).toEqual(expect.any(String));
  });

  it('rotates a key: the old one works during the overlap, then stops while requests keep flowing', async () => {
    const old = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    const rotated = await adminCreate<Key>(`/api-keys/${old.id}/rotate`, { overlap_seconds: 3 });
    secrets.push(old.key, rotated.key);
    expect(rotated.id).not.toBe(old.id);
    expect((await describeKey(rotated.key)).body).toMatchObject({ id: rotated.id, scope: 'workstream', workstream_id: workstreamId });

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

    const listed = await http<{ id: string; rotated_from_id: string | null; expires_at: string | null }[]>(
      'GET',
      `/admin/v1/api-keys?workstream_id=${workstreamId}`,
      { headers: adminHeaders() },
    );
    expect(listed.body.find((k) => k.id === rotated.id)?.rotated_from_id).toBe(old.id);
    expect(listed.body.find((k) => k.id === old.id)?.expires_at).toEqual(expect.any(String));
  });

  it('replays a rotation retried with the same Idempotency-Key: one new key, also for concurrent retries and after the overlap', async () => {
    const old = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(old.key);
    const rotate = (key: string, body: unknown = { overlap_seconds: 0 }) =>
      http<Key>('POST', `/admin/v1/api-keys/${old.id}/rotate`, { headers: { ...adminHeaders(), 'Idempotency-Key': key }, body });
    // A lost answer retried at once, five times over: the overlap of 0 expires the old key with the first
    // commit, so a retry that looked before it must still answer the winner's key, not a 409.
    const answers = await Promise.all(Array.from({ length: 5 }, () => rotate('rotation-1')));
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    const [first] = answers;
    secrets.push(first.body.key);
    for (const answer of answers) expect(answer.body).toEqual({ id: first.body.id, key: first.body.key });
    expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).toHaveLength(4);
    expect((await describeKey(first.body.key)).body).toMatchObject({ id: first.body.id, workstream_id: workstreamId });

    // Later, with the old key long expired: still the same answer.
    const later = await rotate('rotation-1');
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBe('true');
    expect(later.body).toEqual(first.body);

    // The same key with another body: 422 naming the header; a malformed key: 422; nothing created by either.
    const reused = await rotate('rotation-1', { overlap_seconds: 60 });
    expect(reused.status).toBe(422);
    expect(reused.body).toMatchObject({
      message: expect.stringContaining('Idempotency-Key "rotation-1" was already used with another request'),
    });
    const malformed = await rotate('\u00e9t\u00e9');
    expect(malformed.status).toBe(422);
    expect(malformed.body).toMatchObject({
      message: expect.stringContaining('Idempotency-Key header must be 1 to 255 printable ASCII characters'),
    });
    // A new key for a new rotation of the expired key: the 409 of any rotation of an expired key.
    expect((await rotate('rotation-2')).status).toBe(409);

    const listed = await http<{ id: string; rotated_from_id: string | null }[]>('GET', `/admin/v1/api-keys?workstream_id=${workstreamId}`, {
      headers: adminHeaders(),
    });
    expect(listed.body.filter((k) => k.rotated_from_id === old.id).map((k) => k.id)).toEqual([first.body.id]);
  });

  it('refuses bad rotations', async () => {
    const { id, key } = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(key);
    for (const body of [{}, { overlap_seconds: -1 }, { overlap_seconds: 'soon' }, { overlap_seconds: 8 * 24 * 3600 }]) {
      const result = await http<{ errors: { field: string }[] }>('POST', `/admin/v1/api-keys/${id}/rotate`, {
        headers: adminHeaders(),
        body,
      });
      expect(result.status).toBe(422);
      expect(result.body.errors[0].field).toBe('overlap_seconds');
    }
    expect(
      (await http('POST', '/admin/v1/api-keys/no-such-key/rotate', { headers: adminHeaders(), body: { overlap_seconds: 0 } })).status,
    ).toBe(404);
    await http('DELETE', `/admin/v1/api-keys/${id}`, { headers: adminHeaders() });
    const revoked = await http('POST', `/admin/v1/api-keys/${id}/rotate`, { headers: adminHeaders(), body: { overlap_seconds: 0 } });
    expect(revoked.status).toBe(409);
    expect(revoked.body).toEqual({ message: `API key ${id} is revoked and cannot be rotated` });
  });

  it('resets the account password: the old one stops at once on every instance, the new one works', async () => {
    const lines = (user: string, pass: string, base = '') =>
      http('GET', `${base}/v4/lines`, {
        headers: { authorization: `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`, 'x-forwarded-for': thisClient },
      });
    // Used before the reset on both instances, so each has verified (and remembered) the old password.
    expect((await lines(username, password)).status).toBe(200);
    expect((await lines(username, password, other.url)).status).toBe(200);
    const reset = await http<{ id: string; username: string; password: string }>(
      'POST',
      `/admin/v1/accounts/${accountId}/credentials/reset`,
      { headers: adminHeaders() },
    );
    expect(reset.status).toBe(200);
    expect(reset.body).toEqual({ id: accountId, username: expect.any(String), password: expect.any(String) });
    expect(reset.body.username).toBe(username);
    expect(secrets).not.toContain(reset.body.password);
    secrets.push(reset.body.password);
    for (const base of ['', other.url]) {
      const old = await lines(username, password, base);
      expect([old.status, old.body]).toEqual([401, { message: 'Bad credentials' }]);
      expect((await lines(username, reset.body.password, base)).status).toBe(200);
    }
    expect((await http('POST', '/admin/v1/accounts/no-such-account/credentials/reset', { headers: adminHeaders() })).status).toBe(404);
  });

  it('answers 429 past the limit of wrong API keys from one address, yet serves a right key from it (keys cannot be guessed)', async () => {
    const { key } = await adminCreate<Key>(`/workstreams/${workstreamId}/api-keys`, {});
    secrets.push(key);
    const attacker = randomSource();
    for (let i = 0; i < 5; i++) {
      const result = await http('GET', `${other.url}/v1/api-key`, {
        headers: { 'x-api-key': `wlk_guess_${i}`, 'x-forwarded-for': attacker },
      });
      expect(result.status).toBe(401);
    }
    const blocked = await http<{ message: string }>('GET', `${other.url}/v1/api-key`, {
      headers: { 'x-api-key': 'wlk_guess_more', 'x-forwarded-for': attacker },
    });
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(blocked.body.message).toMatch(/^Too many failed authentications from this address; retry in \d+ s$/);
    // Behind a proxy with TRUST_PROXY=0 every client has this address: a right key still works.
    expect((await http('GET', `${other.url}/v1/api-key`, { headers: { 'x-api-key': key, 'x-forwarded-for': attacker } })).status).toBe(200);
    // Other credential families have buckets of their own.
    const account = await newAccount();
    expect((await linesFrom(attacker, account.username, account.password)).status).toBe(200);
  });

  it('refuses the admin token from an address past its limit of wrong admin tokens, even when right (it may be guessable)', async () => {
    const attacker = randomSource();
    const wrong = { authorization: `Bearer ${'x'.repeat(32)}`, 'x-forwarded-for': attacker };
    for (let i = 0; i < 5; i++) expect((await http('GET', `${other.url}/admin/v1/api-keys`, { headers: wrong })).status).toBe(401);
    expect((await http('GET', `${other.url}/admin/v1/api-keys`, { headers: wrong })).status).toBe(429);
    const blockedAdmin = await http('POST', `${other.url}/admin/v1/accounts`, {
      headers: { ...adminHeaders(), 'x-forwarded-for': attacker },
      body: { name: 'x' },
    });
    expect(blockedAdmin.status).toBe(429);
    expect(
      (await http('GET', `${other.url}/admin/v1/api-keys`, { headers: { ...adminHeaders(), 'x-forwarded-for': randomSource() } })).status,
    ).toBe(200);
  });

  it('checks at most the limit of 300 concurrent wrong passwords for one account, then locks that account (only) out from that address', async () => {
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
    expect(answers.find((answer) => answer.status === 429)?.body).toEqual({
      message: expect.stringMatching(/^Too many failed authentications from this address; retry in \d+ s$/),
    });
    // The right password from that address is refused too (else guessing would go on past the limit), without a check ...
    const locked = await linesFrom(attacker, username, password);
    expect(locked.status).toBe(429);
    expect(Number(locked.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await passwordChecks(other.url)).toBe(checksBefore + checks);
    // ... while the account from any other address, and every other account from this one, are served.
    expect((await linesFrom(randomSource(), username, password)).status).toBe(200);
    // Now verified and cached by this gateway, the right password is still refused from the locked address.
    expect((await linesFrom(attacker, username, password)).status).toBe(429);
    const neighbour = await newAccount();
    expect((await linesFrom(attacker, neighbour.username, neighbour.password)).status).toBe(200);
  });

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
    const served = await http('GET', '/v3/tasks/anything');
    expect(served.headers.get('deprecation')).toBe('true');
    expect(served.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    const link = served.headers.get('link')!;
    expect(link).toMatch(/^<http:\/\/127\.0\.0\.1:\d+\/docs\/v3-migration\.md>; rel="deprecation"; type="text\/markdown"$/);
    const notes = await http('GET', link.slice(1, link.indexOf('>')));
    expect(notes.status).toBe(200);
    expect(notes.text).toContain('# Migrating from the platform API v3 to v4');

    const withdrawn = await http<{ status: number; error: string }>('POST', `${other.url}/v3/tasks`, {
      body: { template_id: 'x', resources: [{}] },
    });
    expect(withdrawn.status).toBe(410);
    expect(withdrawn.body).toEqual({ status: 410, error: expect.stringMatching(/^API version 3 has been withdrawn: use \/v4/) });
    expect(withdrawn.headers.get('sunset')).toBe('Mon, 25 Dec 2017 00:00:00 GMT');
    expect((await http('GET', `${other.url}/v4/lines`)).status).not.toBe(410);
  });

  it('never writes a key, password or token into a log line', async () => {
    const worker = await adminCreate<{ token: string }>('/workers', { email: `log.${Date.now()}@example.com`, name: 'Log' });
    secrets.push(worker.token);
    const refused = await http('POST', `${other.url}/workforce/v1/assignments/next`, {
      headers: { authorization: `Bearer ${worker.token}`, 'x-forwarded-for': thisClient },
      body: { kind: 'nothing' },
    });
    expect(refused.status).toBe(422);
    const logDir = join(__dirname, '..', '..', '.cache', 'logs', 'test');
    const logs = readdirSync(logDir).map((file) => readFileSync(join(logDir, file), 'utf8'));
    expect(logs.join('').length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(logs.some((log) => log.includes(secret))).toBe(false);
    }
  });
});
