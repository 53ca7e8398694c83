import { sign, verify } from '@workline/signature';
import {
  adminCreate,
  basicHeader,
  completeUnit,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  LoopbackReceiver,
  nextUnit,
  type PlatformAccount,
} from '@workline/testing';
import { createHmac, randomBytes } from 'node:crypto';

/**
 * End to end, across every app: a client creates work with a callback URL, workers finish it through the
 * work API, and a real HTTP receiver on loopback gets the callback from the webhook-dispatcher.
 */
describe('callbacks and webhooks reach a real receiver', () => {
  const receiver = new LoopbackReceiver();
  let acme: PlatformAccount;
  let worker: Record<string, string>;

  beforeAll(async () => {
    await receiver.start();
    acme = await createPlatformAccount('Callbacks');
    worker = await createWorker();
  });

  afterAll(() => receiver.stop());

  async function finishAllUnits(lineId: string, output: (input: Record<string, unknown>) => Record<string, unknown>): Promise<void> {
    for (let unit = await nextUnit(worker, lineId); unit; unit = await nextUnit(worker, lineId)) {
      expect((await completeUnit(worker, unit.assignment_id, { output: output(unit.input) })).status).toBe(200);
    }
  }

  it('posts a processed v4 run once, with the URL credentials as Basic and the same schema as GET', async () => {
    const callback = receiver.url('/v4-run').replace('http://', 'http://hook%40user:p%3Ass@');
    const created = await http<{ id: string }>('POST', '/v4/runs', {
      headers: acme.auth,
      body: { line_id: acme.lineId, callback_url: callback, units: [{ identifier: 'a', nested: { x: [1, 2] } }, { identifier: 'b' }] },
    });
    expect(created.status).toBe(201);
    await finishAllUnits(acme.lineId, (input) => ({ label: `done-${String(input.identifier)}` }));

    const [request] = await eventually(() => (receiver.on('/v4-run').length ? receiver.on('/v4-run') : undefined), { what: 'the run callback' });
    expect(request.method).toBe('POST');
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('hook@user:p:ss').toString('base64')}`);
    expect(request.headers['x-svc-signature']).toBeUndefined();
    expect(request.headers['x-svc-delivery-id']).toEqual(expect.any(String));
    const posted = JSON.parse(request.rawBody.toString('utf8'));
    const polled = await http<Record<string, unknown>>('GET', `/v4/runs/${created.body.id}`, { headers: acme.auth });
    expect(posted).toEqual(polled.body);
    expect(posted).toMatchObject({ id: created.body.id, status: 'Processed', processed_at: expect.any(String) });
    expect(posted.units.map((u: { output: unknown }) => u.output)).toEqual([{ label: 'done-a' }, { label: 'done-b' }]);

    // The delivery is listed to the account, delivered after one attempt, and never shows the credentials.
    const deliveryId = String(request.headers['x-svc-delivery-id']);
    const delivery = await eventually(
      async () => {
        const found = await http<{ status: string; attempts: unknown[] }>('GET', `/v1/deliveries/${deliveryId}`, { headers: acme.auth });
        return found.status === 200 && found.body.status === 'delivered' ? found : undefined;
      },
      { what: 'the delivery to be recorded as delivered' },
    );
    expect(delivery.body.attempts).toHaveLength(1);
    expect(delivery.text).not.toContain('p%3Ass');
    expect(delivery.text).not.toContain('hook%40user');
    expect(receiver.on('/v4-run')).toHaveLength(1);
  });

  it('posts a completed v3 batch with completed_at as "YYYY-MM-DD HH:MM:SS UTC"', async () => {
    const line = await adminCreate<{ id: string }>(`/accounts/${acme.id}/lines`, { name: 'v3 line' });
    const created = await http<{ task_id: string; status: string }>('POST', '/v3/tasks', {
      headers: basicHeader(acme.username, acme.password),
      body: { template_id: line.id, callback_url: receiver.url('/v3-batch'), resources: [{ identifier: 'r1', text: 'hello' }] },
    });
    expect(created.body.status).toBe('In-Progress');
    await finishAllUnits(line.id, () => ({ answer: 42 }));
    const [request] = await eventually(() => (receiver.on('/v3-batch').length ? receiver.on('/v3-batch') : undefined), { what: 'the v3 callback' });
    const posted = JSON.parse(request.rawBody.toString('utf8'));
    expect(posted).toMatchObject({ task_id: created.body.task_id, status: 'Completed' });
    expect(posted.completed_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(posted.started_at).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(posted.resources).toEqual([{ identifier: 'r1', text: 'hello', answer: 42, extra: { status: 'Completed' } }]);
  });

  describe('oversight task events, signed with the creating API key', () => {
    let key: string;
    let configurationId: string;
    let token: string;

    beforeAll(async () => {
      const account = await adminCreate<{ id: string }>('/accounts', { name: 'Oversight E2E' });
      const workstream = await adminCreate<{ id: string }>('/workstreams', { account_id: account.id, name: 'E2E', use_cases: [] });
      ({ key } = await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {}));
      ({ id: configurationId } = await adminCreate<{ id: string }>(`/workstreams/${workstream.id}/configurations`, { name: 'E2E', extended_events: true, tool_project_id: 'tp-e2e' }));
      ({ token } = await adminCreate<{ token: string }>('/workers', { email: `annotator.${randomBytes(4).toString('hex')}@example.com`, name: 'Annotator' }));
    });

    async function createTask(path: string): Promise<string> {
      const grant = await http<{ media_upload_url: string; media_key: string }>('POST', '/v1/signed-url', { headers: { 'x-api-key': key }, body: { configuration_id: configurationId } });
      const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(64)]);
      const upload = await fetch(grant.body.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
      expect(upload.status).toBe(200);
      const task = await http<{ task_id: string }>('POST', '/v1/tasks', {
        headers: { 'x-api-key': key },
        body: { media_key: grant.body.media_key, configuration_id: configurationId, callback_url: receiver.url(path) },
      });
      expect(task.status).toBe(201);
      return task.body.task_id;
    }

    /** Leases until this worker holds `taskId` (tasks are offered oldest first across tests). */
    async function lease(taskId: string): Promise<string> {
      for (let i = 0; i < 200; i++) {
        const next = await http<{ assignment_id: string; task_id: string }>('POST', '/workforce/v1/assignments/next', { headers: { authorization: `Bearer ${token}` }, body: { kind: 'task' } });
        expect(next.status).toBe(200);
        if (next.body.task_id === taskId) return next.body.assignment_id;
        await http('POST', `/workforce/v1/assignments/${next.body.assignment_id}/flag`, { headers: { authorization: `Bearer ${token}` }, body: { reason: 'left over by another test' } });
      }
      throw new Error(`task ${taskId} was never offered`);
    }

    const received = (path: string) => eventually(() => receiver.on(path)[0], { what: `a webhook on ${path}` });

    it('task.result_available: verifies with libs/signature and with an independent HMAC, body per the spec', async () => {
      const taskId = await createTask('/task-done');
      const assignment = await lease(taskId);
      const done = await http('POST', `/workforce/v1/assignments/${assignment}/complete`, {
        headers: { authorization: `Bearer ${token}` },
        body: { updated_tags: [{ value: 'cat', confidence_score: 0.93 }], metadata: [{ key: 'reviewer', value: 'r1' }] },
      });
      expect(done.status).toBe(200);

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
      const status = await http<{ state: string }>('GET', `/v1/tasks/${taskId}`, { headers: { 'x-api-key': key } });
      expect(status.body.state).toBe('COMPLETED');
    });

    it('task.error when a worker flags the task', async () => {
      const taskId = await createTask('/task-flagged');
      const assignment = await lease(taskId);
      expect((await http('POST', `/workforce/v1/assignments/${assignment}/flag`, { headers: { authorization: `Bearer ${token}` }, body: { reason: 'blurry' } })).status).toBe(200);
      const request = await received('/task-flagged');
      expect(verify(String(request.headers['x-svc-signature']), request.rawBody, key).ok).toBe(true);
      expect(JSON.parse(request.rawBody.toString('utf8'))).toMatchObject({ event_type: 'task.error', task_id: taskId });
    });
  });
});
