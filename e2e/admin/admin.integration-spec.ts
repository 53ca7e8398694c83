import type { Schemas, WorklineClient } from '@workline/client';
import { adminClient, adminHeaders, apiClient, fieldErrors, http, ok } from '@workline/testing';

describe('admin API (over real Kafka request-reply and PostgreSQL)', () => {
  const admin = adminClient();
  let account: Schemas['NewAccountAnswer'];
  let workstreamId: string;

  beforeAll(async () => {
    account = await ok(admin.POST('/admin/v1/accounts', { body: { name: 'Acme Labelling' } }), 201);
    const workstream = await ok(
      admin.POST('/admin/v1/workstreams', {
        body: { account_id: account.id, name: 'Street scenes', use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }] },
      }),
      201,
    );
    workstreamId = workstream.id;
  });

  it('creates an account with Basic credentials shown once', () => {
    expect(account).toEqual({ id: expect.any(String), name: 'Acme Labelling', username: expect.any(String), password: expect.any(String) });
    expect(account.password.length).toBeGreaterThanOrEqual(16);
  });

  it('creates a line for an account', async () => {
    const line = await ok(
      admin.POST('/admin/v1/accounts/{account_id}/lines', { params: { path: { account_id: account.id } }, body: { name: 'Receipts' } }),
      201,
    );
    expect(line).toEqual({ id: expect.any(String), name: 'Receipts' });
  });

  it('creates a workstream with its use cases', async () => {
    const created = await ok(
      admin.POST('/admin/v1/workstreams', {
        body: { account_id: account.id, name: 'Second', use_cases: [{ id: 'a', task_definition_ids: ['x'] }] },
      }),
      201,
    );
    expect(created).toMatchObject({
      id: expect.any(String),
      account_id: account.id,
      name: 'Second',
      use_cases: [{ id: 'a', task_definition_ids: ['x'] }],
    });
  });

  it('creates an API key (shown once) and a configuration for a workstream', async () => {
    const params = { path: { workstream_id: workstreamId } };
    const key = await ok(admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params, body: {} }), 201);
    expect(key).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wlk_/) });
    const configuration = await ok(
      admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', {
        params,
        body: { name: 'Default', extended_events: true, tool_project_id: 'tp-9' },
      }),
      201,
    );
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
    const worker = await ok(admin.POST('/admin/v1/workers', { body: { email, name: 'Ann' } }), 201);
    expect(worker).toEqual({ id: expect.any(String), token: expect.stringMatching(/^wkr_/) });
    const again = await admin.POST('/admin/v1/workers', { body: { email, name: 'Ann again' } });
    expect(again.response.status).toBe(409);
    expect(again.error).toEqual({ message: `a worker with email ${email} already exists` });
  });

  describe('refuses bad requests and changes nothing', () => {
    it('401 without or with a wrong admin token', async () => {
      const attempts: [WorklineClient, Record<string, string>][] = [
        [apiClient(), {}],
        [apiClient({ bearer: 'wrong-token-wrong-token' }), {}],
        [apiClient(), { authorization: 'Basic abc' }],
      ];
      for (const [client, headers] of attempts) {
        const result = await client.POST('/admin/v1/accounts', { headers, body: { name: 'x' } });
        expect(result.response.status).toBe(401);
        expect(result.error).toEqual({ message: expect.stringMatching(/admin token/) });
      }
    });

    it('404 naming the unknown account or workstream', async () => {
      const unknownWorkstream = { path: { workstream_id: 'no-such-ws' } };
      const cases: [string, Promise<{ error?: { message?: string }; response: Response }>, RegExp][] = [
        [
          'lines',
          admin.POST('/admin/v1/accounts/{account_id}/lines', { params: { path: { account_id: 'no-such-account' } }, body: { name: 'L' } }),
          /account no-such-account not found/,
        ],
        [
          'workstreams',
          admin.POST('/admin/v1/workstreams', { body: { account_id: 'no-such-account', name: 'W', use_cases: [] } }),
          /account no-such-account not found/,
        ],
        [
          'api-keys',
          admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: unknownWorkstream, body: {} }),
          /workstream no-such-ws not found/,
        ],
        [
          'configurations',
          admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', { params: unknownWorkstream, body: { name: 'C' } }),
          /workstream no-such-ws not found/,
        ],
      ];
      for (const [path, call, message] of cases) {
        const result = await call;
        expect({ path, status: result.response.status }).toEqual({ path, status: 404 });
        expect(result.error?.message).toMatch(message);
      }
    });

    // Bodies of the wrong shape on purpose: raw http(), since the typed client refuses to send them.
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

      // A string that is not an email is of the documented type: the typed client sends it.
      const email = await admin.POST('/admin/v1/workers', { body: { email: 'not-an-email', name: 'B' } });
      expect(email.response.status).toBe(422);
      expect(fieldErrors(email)).toEqual([{ field: 'email', message: 'email must be an email' }]);
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
      const created = await ok(admin.POST('/admin/v1/workers', { body: { email: 'same@example.com', name: 'Now valid' } }), 201);
      expect(created).toMatchObject({ id: expect.any(String) });
    });

    it('404 with a message for an unknown route', async () => {
      const result = await http('GET', '/admin/v1/nothing-here', { headers: adminHeaders() });
      expect(result.status).toBe(404);
      expect(result.body).toEqual({ message: 'Not found: no route GET /admin/v1/nothing-here' });
    });
  });
});
