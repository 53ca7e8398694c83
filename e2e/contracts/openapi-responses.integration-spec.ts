import { type WorklineClient } from '@workline/client';
import { ContractCheck, eventually, LoopbackReceiver, qualityRecord, solidPng, testStack, takesTurnOn } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** The path and signature query of a presigned URL the API handed out. */
function signed(url: string): { id: string; query: { expires: number; signature: string } } {
  const parsed = new URL(url);
  return {
    id: parsed.pathname.split('/').pop() as string,
    query: { expires: Number(parsed.searchParams.get('expires')), signature: parsed.searchParams.get('signature') as string },
  };
}

/** Fails with the answer when a call did not succeed: a scenario step the next ones depend on. */
function ok<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.data === undefined)
    throw new Error(`${result.response.url} answered ${result.response.status}: ${JSON.stringify(result.error)}`);
  return result.data;
}

const PNG = solidPng(32, 24, [30, 120, 200]);
const CSV =
  'use_case_id,task_definition_id,worker_id,review_completed_at,review_score\nuc-1,td-1,ann@example.com,2024-05-01T12:00:00Z,0.8\n';

/**
 * Every operation of docs/openapi.json called on the running stack through the typed client (libs/client),
 * each answer validated against its documented status, media type and schema (ContractCheck), success and
 * error answers of every API group alike.
 */
describe('real answers of every operation match docs/openapi.json', () => {
  takesTurnOn('oversight task queue');
  const check = new ContractCheck();
  const receiver = new LoopbackReceiver();
  const suffix = randomUUID().slice(0, 8);
  const anonymous = check.client();
  const admin = check.client({ bearer: testStack().adminToken });

  beforeAll(() => receiver.start());
  afterAll(() => receiver.stop());

  it('operations, docs and console', async () => {
    for (const path of [
      '/health',
      '/health/ready',
      '/health/live',
      '/docs',
      '/docs/openapi.json',
      '/docs/asyncapi.json',
      '/console',
      '/console/console.js',
      '/console/console.css',
      '/metrics',
      '/docs/v3-migration.md',
    ] as const) {
      await anonymous.GET(path, { parseAs: 'text' });
    }
    await anonymous.GET('/docs/swagger-ui/{file}', { params: { path: { file: 'swagger-ui.css' } }, parseAs: 'text' });
    await anonymous.GET('/docs/swagger-ui/{file}', { params: { path: { file: 'nope.js' as 'swagger-ui.css' } } });
    await check.client({ bearer: 'not-the-admin-token' }).GET('/health/ready');
  });

  let tenant: { accountId: string; workstreamId: string; key: string; configurationId: string; api: WorklineClient };

  it('admin API: accounts, workstreams, keys, configurations, buckets, workers, lists', async () => {
    await admin.POST('/admin/v1/accounts', { body: {} as { name: string } });
    await anonymous.POST('/admin/v1/accounts', { body: { name: 'no token' } });
    const account = ok(await admin.POST('/admin/v1/accounts', { body: { name: `Contract ${suffix}` } }));
    const workstream = ok(
      await admin.POST('/admin/v1/workstreams', {
        body: { account_id: account.id, name: `Contract ${suffix}`, use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }] },
      }),
    );
    const { key } = ok(
      await admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: { path: { workstream_id: workstream.id } }, body: {} }),
    );
    const configuration = ok(
      await admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', {
        params: { path: { workstream_id: workstream.id } },
        body: { name: 'Contract' },
      }),
    );
    tenant = {
      accountId: account.id,
      workstreamId: workstream.id,
      key,
      configurationId: configuration.id,
      api: check.client({ apiKey: key }),
    };

    ok(
      await admin.POST('/admin/v1/workstreams/{workstream_id}/buckets', {
        params: { path: { workstream_id: workstream.id } },
        body: { driver: 'fs', root: mkdtempSync(join(tmpdir(), 'workline-contract-')) },
      }),
    );
    const quotaPath = { path: { workstream_id: workstream.id } };
    ok(await admin.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { params: quotaPath, body: { day: 20_000, week: null } }));
    ok(await admin.GET('/admin/v1/workstreams/{workstream_id}/task-quota', { params: quotaPath }));
    await admin.PUT('/admin/v1/workstreams/{workstream_id}/task-quota', { params: quotaPath, body: { day: 0 } });
    await admin.GET('/admin/v1/workstreams/{workstream_id}/task-quota', { params: { path: { workstream_id: 'ws_missing' } } });
    const project = ok(
      await admin.POST('/admin/v1/accounts/{account_id}/api-keys', { params: { path: { account_id: account.id } }, body: {} }),
    );
    ok(await admin.GET('/admin/v1/api-keys', { params: { query: { account_id: account.id } } }));
    const rotated = ok(
      await admin.POST('/admin/v1/api-keys/{key_id}/rotate', { params: { path: { key_id: project.id } }, body: { overlap_seconds: 0 } }),
    );
    await admin.DELETE('/admin/v1/api-keys/{key_id}', { params: { path: { key_id: rotated.id } } });
    await admin.DELETE('/admin/v1/api-keys/{key_id}', { params: { path: { key_id: 'key_missing' } } });
    const other = ok(await admin.POST('/admin/v1/accounts', { body: { name: `Contract reset ${suffix}` } }));
    ok(await admin.POST('/admin/v1/accounts/{account_id}/credentials/reset', { params: { path: { account_id: other.id } } }));
    ok(await admin.POST('/admin/v1/workers', { body: { email: `contract.${suffix}@example.com`, name: 'Contract worker' } }));
    ok(await admin.GET('/admin/v1/tasks', { params: { query: { workstream_id: workstream.id, limit: 5 } } }));
    await admin.GET('/admin/v1/tasks', { params: { query: { state: 'NOPE' as 'QUEUED' } } });
  });

  it('identity and performance APIs, with the 422 record errors', async () => {
    const { api, workstreamId } = tenant;
    ok(await api.GET('/v1/api-key'));
    await anonymous.GET('/v1/api-key');
    const path = { workstream_id: workstreamId };
    ok(await api.POST('/v1/workstreams/{workstream_id}/task_reviewed', { params: { path }, body: qualityRecord(workstreamId) }));
    const refused = await api.POST('/v1/workstreams/{workstream_id}/task_reviewed', {
      params: { path },
      body: { use_case_id: 'uc-1', review_score: 7 } as never,
    });
    expect(refused.error).toMatchObject({
      message: expect.stringMatching(/^Invalid request: /),
      errors: expect.arrayContaining([expect.objectContaining({ field: 'review_score' })]),
    });
    ok(
      await api.POST('/v1/workstreams/{workstream_id}/task_completed', {
        params: { path },
        body: { worker_id: 'bob@example.com', task_completed_at: '2024-05-01T12:00:00Z', duration_seconds: 60 },
      }),
    );
    const presigned = ok(
      await api.POST('/v1/workstreams/{workstream_id}/performance/generate-presigned-url', {
        params: { path },
        body: { kind: 'quality', file_name: 'contract.csv' },
      }),
    );
    const upload = signed(presigned.upload_url);
    ok(
      await anonymous.PUT('/uploads/performance/{upload_id}', {
        params: { path: { upload_id: upload.id }, query: upload.query },
        body: CSV,
        bodySerializer: (body) => body,
        headers: { 'content-type': 'text/csv' },
      }),
    );
    await anonymous.PUT('/uploads/performance/{upload_id}', {
      params: { path: { upload_id: upload.id }, query: { ...upload.query, signature: 'bad' } },
      body: CSV,
      bodySerializer: (body) => body,
      headers: { 'content-type': 'text/csv' },
    });
    await eventually(
      async () =>
        ok(
          await api.GET('/v1/workstreams/{workstream_id}/performance/uploads/{upload_id}', {
            params: { path: { workstream_id: workstreamId, upload_id: upload.id } },
          }),
        ).state === 'completed',
      { what: 'the CSV upload to complete' },
    );
    ok(await api.GET('/v1/workstreams/{workstream_id}/reports/quality', { params: { path, query: { group_by: 'day' } } }));
    ok(await api.GET('/v1/workstreams/{workstream_id}/reports/quality', { params: { path, query: { format: 'csv' } }, parseAs: 'text' }));
    await api.GET('/v1/workstreams/{workstream_id}/reports/quality', { params: { path, query: { from: 'yesterday' } } });
    ok(await api.GET('/v1/workstreams/{workstream_id}/reports/throughput', { params: { path } }));
    ok(await admin.GET('/admin/v1/workstreams/{workstream_id}/reports/quality', { params: { path } }));
    ok(await admin.GET('/admin/v1/workstreams/{workstream_id}/reports/throughput', { params: { path, query: { group_by: 'worker' } } }));
  });

  it('oversight API and the work API on tasks: upload, create, read, lease, download, complete', async () => {
    const { api, configurationId } = tenant;
    const grant = ok(await api.POST('/v1/signed-url', { body: { configuration_id: configurationId } }));
    const media = signed(grant.media_upload_url);
    ok(
      await anonymous.PUT('/uploads/media/{media_key}', {
        params: { path: { media_key: media.id }, query: media.query },
        body: '',
        bodySerializer: () => PNG,
        headers: { 'content-type': 'image/png' },
      }),
    );
    await anonymous.PUT('/uploads/media/{media_key}', {
      params: { path: { media_key: media.id }, query: media.query },
      body: '',
      bodySerializer: () => PNG,
      headers: { 'content-type': 'image/bmp' },
    });
    const { task_id } = ok(
      await api.POST('/v1/tasks', {
        body: { media_key: grant.media_key, configuration_id: configurationId },
        headers: { 'Idempotency-Key': `contract-${suffix}` },
      }),
    );
    const replayed = await api.POST('/v1/tasks', {
      body: { media_key: grant.media_key, configuration_id: configurationId },
      headers: { 'Idempotency-Key': `contract-${suffix}` },
    });
    expect({ status: replayed.response.status, task_id: replayed.data?.task_id }).toEqual({ status: 201, task_id });
    ok(await api.GET('/v1/tasks/{id}', { params: { path: { id: task_id } } }));
    await api.GET('/v1/tasks/{id}', { params: { path: { id: 'tsk_missing' } } });

    const worker = ok(await admin.POST('/admin/v1/workers', { body: { email: `tasks.${suffix}@example.com`, name: 'Task worker' } }));
    const work = check.client({ bearer: worker.token });
    // `next` offers any queued task: one left by another test is skipped (its lease runs out).
    const mine = await eventually(
      async () => {
        const next = ok(await work.POST('/workforce/v1/assignments/next', { body: { kind: 'task' } }));
        return next.kind === 'task' && next.task_id === task_id ? next : undefined;
      },
      { what: 'our task to be offered', intervalMs: 10 },
    );
    const download = signed(mine.media_url);
    ok(
      await anonymous.GET('/media/tasks/{task_id}', {
        params: { path: { task_id: download.id }, query: download.query },
        parseAs: 'arrayBuffer',
      }),
    );
    ok(
      await work.POST('/workforce/v1/assignments/{id}/complete', {
        params: { path: { id: mine.assignment_id } },
        body: { updated_tags: [{ value: 'blue', confidence_score: 0.9 }] },
      }),
    );
    await work.POST('/workforce/v1/assignments/{id}/complete', {
      params: { path: { id: 'asgt_missing' } },
      body: { updated_tags: [] },
    });
  });

  it('platform API v4 and v3, the work API on units, and the delivery API on the run callback', async () => {
    const account = ok(await admin.POST('/admin/v1/accounts', { body: { name: `Contract platform ${suffix}` } }));
    const line = ok(
      await admin.POST('/admin/v1/accounts/{account_id}/lines', {
        params: { path: { account_id: account.id } },
        body: { name: 'Contract line' },
      }),
    );
    const platform = check.client({ basic: { username: account.username, password: account.password } });
    await check.client({ basic: { username: account.username, password: 'wrong' } }).GET('/v4/lines');
    ok(await platform.GET('/v4/lines'));
    await platform.POST('/v4/lines', { body: { name: 'mine' } as never });
    await platform.POST('/v4/runs', { body: {} as never });
    const run = ok(
      await platform.POST('/v4/runs', {
        body: { line_id: line.id, callback_url: receiver.url(`/run-${suffix}`), units: [{ identifier: 'u1' }, { identifier: 'u2' }] },
      }),
    );
    ok(await platform.GET('/v4/runs/{id}', { params: { path: { id: run.id }, query: { units_offset: 0, units_limit: 1 } } }));
    ok(await admin.GET('/admin/v1/runs', { params: { query: { account_id: account.id, limit: 5 } } }));
    await admin.GET('/admin/v1/runs', { params: { query: { status: 'NOPE' as 'Processing' } } });
    await platform.GET('/v4/runs/{id}', { params: { path: { id: 'run_missing' } } });
    await platform.DELETE('/v4/runs/{id}', { params: { path: { id: run.id } } });

    const worker = ok(await admin.POST('/admin/v1/workers', { body: { email: `units.${suffix}@example.com`, name: 'Unit worker' } }));
    const work = check.client({ bearer: worker.token });
    await anonymous.POST('/workforce/v1/assignments/next', { body: { kind: 'unit' } });
    await work.POST('/workforce/v1/assignments/next', { body: { kind: 'robot' as 'unit' } });
    const first = ok(await work.POST('/workforce/v1/assignments/next', { body: { kind: 'unit', line_id: line.id } }));
    ok(
      await work.POST('/workforce/v1/assignments/{id}/complete', {
        params: { path: { id: first.assignment_id } },
        body: { output: { label: 'yes' } },
      }),
    );
    await work.POST('/workforce/v1/assignments/{id}/complete', {
      params: { path: { id: first.assignment_id } },
      body: { output: { label: 'again' } },
    });
    const second = ok(await work.POST('/workforce/v1/assignments/next', { body: { kind: 'unit', line_id: line.id } }));
    ok(
      await work.POST('/workforce/v1/assignments/{id}/flag', {
        params: { path: { id: second.assignment_id } },
        body: { reason: 'unreadable' },
      }),
    );
    const none = await work.POST('/workforce/v1/assignments/next', { body: { kind: 'unit', line_id: line.id } });
    expect(none.response.status).toBe(204);
    await platform.POST('/v4/runs/{id}/abort', { params: { path: { id: run.id } } });

    const aborted = ok(
      await platform.POST('/v4/runs', {
        body: { line_id: line.id, units: [{ identifier: 'u3' }] },
        headers: { 'Idempotency-Key': `abort-${suffix}` },
      }),
    );
    ok(await platform.POST('/v4/runs/{id}/abort', { params: { path: { id: aborted.id } } }));

    const v3 = ok(await platform.POST('/v3/tasks', { body: { template_id: line.id, resources: [{ identifier: 'r1' }] } }));
    ok(await platform.GET('/v3/tasks/{task_id}', { params: { path: { task_id: v3.task_id } } }));
    await platform.POST('/v3/tasks', { body: {} as never });
    await platform.GET('/v3/tasks/{task_id}', { params: { path: { task_id: 'run_missing' } } });
    await anonymous.GET('/v3/tasks/{task_id}', { params: { path: { task_id: v3.task_id } } });

    await anonymous.GET('/v1/deliveries');
    await platform.GET('/v1/deliveries', { params: { query: { status: 'lost' as 'dead' } } });
    const delivered = await eventually(
      async () =>
        ok(await platform.GET('/v1/deliveries', { params: { query: { status: 'delivered', limit: 10 } } })).deliveries.find(
          (d) => d.run_id === run.id,
        ),
      {
        what: "the run's callback to be delivered",
        timeoutMs: 60_000,
      },
    );
    ok(await platform.GET('/v1/deliveries/{id}', { params: { path: { id: delivered.id } } }));
    await platform.GET('/v1/deliveries/{id}', { params: { path: { id: 'dlv_missing' } } });
    ok(await platform.POST('/v1/deliveries/{id}/redeliver', { params: { path: { id: delivered.id } } }));
  });

  it(
    'every answer matched its documented status, headers, media type and schema; every operation succeeded and ' +
      'every group error was checked',
    async () => {
      // The check is not vacuous: a wrong field type, a missing field, an undocumented status, a missing or
      // malformed header, a header where none is declared are all caught.
      const json = (body: unknown, status = 200, headers: Record<string, string> = {}) =>
        new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } });
      const key = { id: 'key_1', scope: 'workstream', account_id: 'acc_1', workstream_id: 'ws_1' };
      const limits = { 'x-ratelimit-limit': '1200', 'x-ratelimit-remaining': '1199', 'x-ratelimit-reset': '60' };
      expect((await check.checkAnswer('GET', '/v1/api-key', json(key, 200, limits))).problems).toEqual([]);
      expect((await check.checkAnswer('GET', '/v1/api-key', json({ ...key, scope: 'planet' }))).problems).not.toEqual([]);
      expect((await check.checkAnswer('GET', '/v1/api-key', json({ id: 'key_1' }))).problems).not.toEqual([]);
      expect((await check.checkAnswer('POST', '/v4/runs', json({ status: 102, error: 'Data is invalid' }, 422))).problems).not.toEqual([]);
      expect((await check.checkAnswer('GET', '/v1/api-key', json({ message: 'x' }, 418))).problems).toEqual([
        'status 418 is not documented',
      ]);
      expect((await check.checkAnswer('GET', '/v4/lines', json({ message: 'Bad credentials' }, 401))).problems).toEqual([
        'header www-authenticate is missing',
      ]);
      expect((await check.checkAnswer('GET', '/v1/api-key', json(key, 200, { ...limits, 'x-ratelimit-limit': 'many' }))).problems).toEqual([
        expect.stringMatching(/^header x-ratelimit-limit: "many" /),
      ]);
      expect((await check.checkAnswer('GET', '/v1/api-key', json(key, 200, { 'idempotent-replayed': 'true' }))).problems).toEqual([
        'header idempotent-replayed is not documented for this status',
      ]);

      expect(check.answers.filter((a) => a.problems.length)).toEqual([]);
      const seen = new Set(check.answers.map((a) => a.operation));
      expect(check.operations().filter((operation) => !seen.has(operation))).toEqual([]);
      // A success of every operation but those that always refuse, which answered their 403.
      const refusing = check.alwaysRefused();
      expect(refusing.sort()).toEqual(['DELETE /v4/runs/{id}', 'POST /v4/lines']);
      const succeeded = new Set(check.answers.filter((a) => a.status < 300).map((a) => a.operation));
      expect(check.operations().filter((operation) => !refusing.includes(operation) && !succeeded.has(operation))).toEqual([]);
      expect(refusing.filter((operation) => !check.answers.some((a) => a.operation === operation && a.status === 403))).toEqual([]);
      // The rate limits are on in the test stack: every answer that declares their headers carried them.
      const limited = check.answers.filter((a) => a.declaredHeaders.includes('x-ratelimit-limit'));
      expect(limited.length).toBeGreaterThan(50);
      expect(limited.filter((a) => Object.keys(limits).some((name) => a.headers[name] === undefined)).map((a) => a.operation)).toEqual([]);
      expect(check.answers.filter((a) => a.headers['idempotent-replayed'] === 'true').map((a) => a.operation)).toEqual(['POST /v1/tasks']);
      expect(check.answers.filter((a) => a.headers['www-authenticate']).map((a) => a.operation.split(' ')[1])).toEqual(
        expect.arrayContaining(['/v4/lines', '/v3/tasks/{task_id}', '/workforce/v1/assignments/next', '/admin/v1/accounts']),
      );
      const errorsOf = (group: RegExp) =>
        check.answers.filter((a) => a.status >= 400 && group.test(a.operation.split(' ')[1])).map((a) => a.status);
      expect(errorsOf(/^\/v4\//)).toEqual(expect.arrayContaining([401, 403, 404, 405, 422]));
      expect(errorsOf(/^\/v3\//)).toEqual(expect.arrayContaining([400, 401]));
      expect(errorsOf(/^\/v1\//)).toEqual(expect.arrayContaining([401, 404, 422]));
      expect(errorsOf(/^\/admin\//)).toEqual(expect.arrayContaining([401, 404, 422]));
      expect(errorsOf(/^\/workforce\//)).toEqual(expect.arrayContaining([401, 404, 409, 422]));
      expect(errorsOf(/^\/(uploads|docs|health)\//)).toEqual(expect.arrayContaining([401, 403, 404, 415]));
    },
  );
});
