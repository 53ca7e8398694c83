import { adminCreate, adminHeaders, http } from '@workline/testing';

interface Account {
  id: string;
  name: string;
  username: string;
  password: string;
}

describe('admin API (over real Kafka request-reply and PostgreSQL)', () => {
  let account: Account;
  let workstreamId: string;

  beforeAll(async () => {
    account = await adminCreate<Account>('/accounts', { name: 'Acme Labelling' });
    const workstream = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: 'Street scenes',
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }],
    });
    workstreamId = workstream.id;
  });

  it('creates an account with Basic credentials shown once', () => {
    expect(account).toEqual({ id: expect.any(String), name: 'Acme Labelling', username: expect.any(String), password: expect.any(String) });
    expect(account.password.length).toBeGreaterThanOrEqual(16);
  });

  it('creates a line for an account', async () => {
    const line = await adminCreate(`/accounts/${account.id}/lines`, { name: 'Receipts' });
    expect(line).toEqual({ id: expect.any(String), name: 'Receipts' });
  });

  it('creates a workstream with its use cases', async () => {
    const created = await adminCreate('/workstreams', {
      account_id: account.id,
      name: 'Second',
      use_cases: [{ id: 'a', task_definition_ids: ['x'] }],
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      account_id: account.id,
      name: 'Second',
      use_cases: [{ id: 'a', task_definition_ids: ['x'] }],
    });
  });

  it('creates an API key (shown once) and a configuration for a workstream', async () => {
    const key = await adminCreate<{ id: string; key: string }>(`/workstreams/${workstreamId}/api-keys`, {});
    expect(key).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wlk_/) });
    const configuration = await adminCreate(`/workstreams/${workstreamId}/configurations`, {
      name: 'Default',
      extended_events: true,
      tool_project_id: 'tp-9',
    });
    expect(configuration).toMatchObject({
      id: expect.any(String),
      workstream_id: workstreamId,
      name: 'Default',
      extended_events: true,
      tool_project_id: 'tp-9',
    });
  });

  it('creates a worker with a bearer token, and refuses a second worker with the same email', async () => {
    const email = `ann.${Date.now()}@example.com`;
    const worker = await adminCreate<{ id: string; token: string }>('/workers', { email, name: 'Ann' });
    expect(worker).toEqual({ id: expect.any(String), token: expect.stringMatching(/^wkr_/) });
    const again = await http('POST', '/admin/v1/workers', { headers: adminHeaders(), body: { email, name: 'Ann again' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ message: `a worker with email ${email} already exists` });
  });

  describe('refuses bad requests and changes nothing', () => {
    it('401 without or with a wrong admin token', async () => {
      const attempts: Record<string, string>[] = [{}, { authorization: 'Bearer wrong-token-wrong-token' }, { authorization: 'Basic abc' }];
      for (const headers of attempts) {
        const result = await http('POST', '/admin/v1/accounts', { headers, body: { name: 'x' } });
        expect(result.status).toBe(401);
        expect(result.body).toEqual({ message: expect.stringMatching(/admin token/) });
      }
    });

    it('404 naming the unknown account or workstream', async () => {
      const cases: [string, unknown, RegExp][] = [
        ['/accounts/no-such-account/lines', { name: 'L' }, /account no-such-account not found/],
        ['/workstreams', { account_id: 'no-such-account', name: 'W', use_cases: [] }, /account no-such-account not found/],
        ['/workstreams/no-such-ws/api-keys', {}, /workstream no-such-ws not found/],
        ['/workstreams/no-such-ws/configurations', { name: 'C' }, /workstream no-such-ws not found/],
      ];
      for (const [path, body, message] of cases) {
        const result = await http<{ message: string }>('POST', `/admin/v1${path}`, { headers: adminHeaders(), body });
        expect({ path, status: result.status }).toEqual({ path, status: 404 });
        expect(result.body.message).toMatch(message);
      }
    });

    it('422 naming the missing field, the field of the wrong type, and unknown fields', async () => {
      const missing = await http<{ message: string; errors: { field: string }[] }>('POST', '/admin/v1/accounts', {
        headers: adminHeaders(),
        body: {},
      });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toEqual([{ field: 'name', message: 'name is required' }]);

      const wrongType = await http<{ errors: { field: string; message: string }[] }>('POST', '/admin/v1/workstreams', {
        headers: adminHeaders(),
        body: { account_id: account.id, name: 'W', use_cases: [{ id: 'u', task_definition_ids: 'td' }] },
      });
      expect(wrongType.status).toBe(422);
      expect(wrongType.body.errors).toContainEqual({
        field: 'use_cases[0].task_definition_ids',
        message: expect.stringMatching(/must be an array/),
      });

      const notBoolean = await http<{ errors: { field: string }[] }>('POST', `/admin/v1/workstreams/${workstreamId}/configurations`, {
        headers: adminHeaders(),
        body: { name: 'C', extended_events: 'yes' },
      });
      expect(notBoolean.status).toBe(422);
      expect(notBoolean.body.errors).toEqual([{ field: 'extended_events', message: 'extended_events must be a boolean value' }]);

      const unknown = await http<{ errors: { field: string }[] }>('POST', '/admin/v1/accounts', {
        headers: adminHeaders(),
        body: { name: 'A', plan: 'gold' },
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual([{ field: 'plan', message: 'property plan should not exist' }]);

      const email = await http<{ errors: { field: string }[] }>('POST', '/admin/v1/workers', {
        headers: adminHeaders(),
        body: { email: 'not-an-email', name: 'B' },
      });
      expect(email.status).toBe(422);
      expect(email.body.errors).toEqual([{ field: 'email', message: 'email must be an email' }]);
    });

    it('400 for invalid JSON, 422 for a body that is not an object, 415 for another content type', async () => {
      const invalid = await http<{ message: string }>('POST', '/admin/v1/accounts', { headers: adminHeaders(), body: '{"name": ' });
      expect(invalid.status).toBe(400);
      expect(invalid.body.message).toMatch(/^Body is not valid JSON/);

      const array = await http('POST', '/admin/v1/accounts', { headers: adminHeaders(), body: [{ name: 'x' }] });
      expect(array.status).toBe(422);
      expect(array.body).toMatchObject({ message: 'Invalid request: the body must be a JSON object' });

      const text = await http('POST', '/admin/v1/accounts', { headers: adminHeaders(), body: 'name=x', contentType: 'text/plain' });
      expect(text.status).toBe(415);
      expect(text.body).toEqual({ message: 'Content-Type must be application/json (got text/plain)' });
    });

    it('a refused request creates nothing', async () => {
      const before = await http<unknown>('POST', '/admin/v1/workers', {
        headers: adminHeaders(),
        body: { email: 'same@example.com', name: 5 },
      });
      expect(before.status).toBe(422);
      const created = await adminCreate('/workers', { email: 'same@example.com', name: 'Now valid' });
      expect(created).toMatchObject({ id: expect.any(String) });
    });

    it('404 with a message for an unknown route', async () => {
      const result = await http('GET', '/admin/v1/nothing-here', { headers: adminHeaders() });
      expect(result.status).toBe(404);
      expect(result.body).toEqual({ message: 'Not found: no route GET /admin/v1/nothing-here' });
    });
  });
});
