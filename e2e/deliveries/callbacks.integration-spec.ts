import { sign, verify } from '@workline/signature';
import type { WorklineClient } from '@workline/client';
import {
  ContractCheck,
  createPlatformAccount,
  eventually,
  LoopbackReceiver,
  type PlatformAccount,
  testStack,
  takesTurnOn,
} from '@workline/testing';
import { createHmac, randomBytes } from 'node:crypto';

/**
 * End to end, across every app, through the typed client generated from docs/openapi.json (libs/client),
 * whose every answer is also checked against the document: a client creates work with a callback URL,
 * workers finish it through the work API, and a real HTTP receiver on loopback gets the callback from the
 * webhook-dispatcher.
 */
describe('callbacks and webhooks reach a real receiver', () => {
  takesTurnOn('oversight task queue');
  const receiver = new LoopbackReceiver();
  const contract = new ContractCheck();
  const admin = contract.client({ bearer: testStack().adminToken });
  let acme: PlatformAccount;
  let platform: WorklineClient;
  let worker: WorklineClient;

  beforeAll(async () => {
    await receiver.start();
    acme = await createPlatformAccount('Callbacks');
    platform = contract.client({ basic: acme });
    const { data } = await admin.POST('/admin/v1/workers', {
      body: { email: `w.${randomBytes(6).toString('hex')}@example.com`, name: 'Worker' },
    });
    worker = contract.client({ bearer: data!.token });
  });

  afterAll(() => receiver.stop());

  async function finishAllUnits(lineId: string, output: (input: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    for (;;) {
      const { data: unit, response } = await worker.POST('/workforce/v1/assignments/next', { body: { kind: 'unit', line_id: lineId } });
      if (response.status === 204) return;
      if (unit?.kind !== 'unit') throw new Error(`next answered ${response.status}`);
      const done = await worker.POST('/workforce/v1/assignments/{id}/complete', {
        params: { path: { id: unit.assignment_id } },
        body: { output: output(unit.input) },
      });
      expect(done.response.status).toBe(200);
    }
  }

  it('posts a processed v4 run once, with the URL credentials as Basic and the same schema as GET', async () => {
    const callback = receiver.url('/v4-run').replace('http://', 'http://hook%40user:p%3Ass@');
    const created = await platform.POST('/v4/runs', {
      body: { line_id: acme.lineId, callback_url: callback, units: [{ identifier: 'a', nested: { x: [1, 2] } }, { identifier: 'b' }] },
    });
    expect(created.response.status).toBe(201);
    await finishAllUnits(acme.lineId, (input) => ({ label: `done-${String(input.identifier)}` }));

    const [request] = await eventually(() => (receiver.on('/v4-run').length ? receiver.on('/v4-run') : undefined), {
      what: 'the run callback',
    });
    expect(request.method).toBe('POST');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('hook@user:p:ss').toString('base64')}`);
    expect(request.headers['x-svc-signature']).toBeUndefined();
    expect(request.headers['x-svc-delivery-id']).toEqual(expect.any(String));
    const posted = JSON.parse(request.rawBody.toString('utf8'));
    const polled = await platform.GET('/v4/runs/{id}', { params: { path: { id: created.data!.id } } });
    expect(posted).toEqual(polled.data);
    expect(posted).toMatchObject({ id: created.data!.id, status: 'Processed', processed_at: expect.any(String) });
    expect(posted.units.map((u: { output: unknown }) => u.output)).toEqual([{ label: 'done-a' }, { label: 'done-b' }]);

    // The delivery is listed to the account, delivered after one attempt, and never shows the credentials.
    const deliveryId = String(request.headers['x-svc-delivery-id']);
    const delivery = await eventually(
      async () => {
        const found = await platform.GET('/v1/deliveries/{id}', { params: { path: { id: deliveryId } } });
        return found.data?.status === 'delivered' ? found.data : undefined;
      },
      { what: 'the delivery to be recorded as delivered' },
    );
    expect(delivery.attempts).toHaveLength(1);
    expect(JSON.stringify(delivery)).not.toContain('p%3Ass');
    expect(JSON.stringify(delivery)).not.toContain('hook%40user');
    expect(receiver.on('/v4-run')).toHaveLength(1);
  });

  it('posts a completed v3 batch with completed_at as "YYYY-MM-DD HH:MM:SS UTC"', async () => {
    const { data: line } = await admin.POST('/admin/v1/accounts/{account_id}/lines', {
      params: { path: { account_id: acme.id } },
      body: { name: 'v3 line' },
    });
    const created = await platform.POST('/v3/tasks', {
      body: { template_id: line!.id, callback_url: receiver.url('/v3-batch'), resources: [{ identifier: 'r1', text: 'hello' }] },
    });
    expect(created.data?.status).toBe('In-Progress');
    await finishAllUnits(line!.id, () => ({ answer: 42 }));
    const [request] = await eventually(() => (receiver.on('/v3-batch').length ? receiver.on('/v3-batch') : undefined), {
      what: 'the v3 callback',
    });
    const posted = JSON.parse(request.rawBody.toString('utf8'));
    expect(posted).toMatchObject({ task_id: created.data!.task_id, status: 'Completed' });
    expect(posted.completed_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(posted.started_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(posted.resources).toEqual([{ identifier: 'r1', text: 'hello', answer: 42, extra: { status: 'Completed' } }]);
  });

  describe('oversight task events, signed with the creating API key', () => {
    let key: string;
    let configurationId: string;
    let api: WorklineClient;
    let annotator: WorklineClient;

    beforeAll(async () => {
      const account = (await admin.POST('/admin/v1/accounts', { body: { name: 'Oversight E2E' } })).data!;
      const workstream = (await admin.POST('/admin/v1/workstreams', { body: { account_id: account.id, name: 'E2E', use_cases: [] } }))
        .data!;
      ({ key } = (
        await admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: { path: { workstream_id: workstream.id } }, body: {} })
      ).data!);
      const configuration = await admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', {
        params: { path: { workstream_id: workstream.id } },
        body: { name: 'E2E', extended_events: true, tool_project_id: 'tp-e2e' },
      });
      configurationId = configuration.data!.id;
      const { token } = (
        await admin.POST('/admin/v1/workers', {
          body: { email: `annotator.${randomBytes(4).toString('hex')}@example.com`, name: 'Annotator' },
        })
      ).data!;
      api = contract.client({ apiKey: key });
      annotator = contract.client({ bearer: token });
    });

    async function createTask(path: string): Promise<string> {
      const grant = (await api.POST('/v1/signed-url', { body: { configuration_id: configurationId } })).data!;
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
      // The presigned URL is used as the API handed it out (its signature is in the query).
      const upload = await fetch(grant.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
      expect(upload.status).toBe(200);
      const task = await api.POST('/v1/tasks', {
        body: { media_key: grant.media_key, configuration_id: configurationId, callback_url: receiver.url(path) },
      });
      expect(task.response.status).toBe(201);
      return task.data!.task_id;
    }

    /** Leases until this worker holds `taskId` (tasks are offered oldest first across tests). */
    async function lease(taskId: string): Promise<string> {
      for (let i = 0; i < 200; i++) {
        const next = await annotator.POST('/workforce/v1/assignments/next', { body: { kind: 'task' } });
        expect(next.response.status).toBe(200);
        if (next.data?.kind === 'task' && next.data.task_id === taskId) return next.data.assignment_id;
        await annotator.POST('/workforce/v1/assignments/{id}/flag', {
          params: { path: { id: next.data!.assignment_id } },
          body: { reason: 'left over by another test' },
        });
      }
      throw new Error(`task ${taskId} was never offered`);
    }

    const received = (path: string) => eventually(() => receiver.on(path)[0], { what: `a webhook on ${path}` });

    it('task.result_available: verifies with libs/signature and with an independent HMAC, body per the spec', async () => {
      const taskId = await createTask('/task-done');
      const assignment = await lease(taskId);
      const done = await annotator.POST('/workforce/v1/assignments/{id}/complete', {
        params: { path: { id: assignment } },
        body: { updated_tags: [{ value: 'cat', confidence_score: 0.93 }], metadata: [{ key: 'reviewer', value: 'r1' }] },
      });
      expect(done.response.status).toBe(200);

      const request = await received('/task-done');
      const header = String(request.headers['x-svc-signature']);
      expect(verify(header, request.rawBody, key)).toMatchObject({ ok: true });
      const [t, v1] = header.split(';').map((part) => part.split('=')[1]);
      expect(createHmac('sha256', key).update(`${t}.`).update(request.rawBody).digest('hex')).toBe(v1);
      expect(sign(request.rawBody, key, Number(t))).toBe(header);
      expect(verify(header, request.rawBody, 'some other key').ok).toBe(false);

      const event = JSON.parse(request.rawBody.toString('utf8'));
      expect(event).toMatchObject({
        uuid: expect.any(String),
        event_type: 'task.result_available',
        timestamp: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/),
        task_id: taskId,
        request_id: expect.any(String),
        diagnostic: { configuration_id: configurationId, tool_project_id: 'tp-e2e', workstream_id: expect.any(String) },
        task_details: { state: 'COMPLETED', updated_tags: [{ value: 'cat', confidence_score: 0.93 }], existing_tags: [] },
        metadata: [{ key: 'reviewer', value: 'r1' }],
      });
      const status = await api.GET('/v1/tasks/{id}', { params: { path: { id: taskId } } });
      expect(status.data?.state).toBe('COMPLETED');
    });

    it('task.error when a worker flags the task', async () => {
      const taskId = await createTask('/task-flagged');
      const assignment = await lease(taskId);
      const flagged = await annotator.POST('/workforce/v1/assignments/{id}/flag', {
        params: { path: { id: assignment } },
        body: { reason: 'blurry' },
      });
      expect(flagged.response.status).toBe(200);
      const request = await received('/task-flagged');
      expect(verify(String(request.headers['x-svc-signature']), request.rawBody, key).ok).toBe(true);
      expect(JSON.parse(request.rawBody.toString('utf8'))).toMatchObject({ event_type: 'task.error', task_id: taskId });
    });
  });

  // Declared last, so it runs after every call above.
  describe('the contract', () => {
    it('got only answers that match docs/openapi.json', () => {
      expect(contract.answers.length).toBeGreaterThan(20);
      expect(contract.answers.filter((answer) => answer.problems.length)).toEqual([]);
    });
  });
});
