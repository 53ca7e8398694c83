import 'reflect-metadata';
import type { DeliveryDetailView, DeliveryPage, DeliveryRequestedEvent } from '@workline/contracts';
import { adminCreate, DeliveryRequester, eventually, http, LoopbackReceiver } from '@workline/testing';
import { randomUUID } from 'node:crypto';

interface Account {
  id: string;
  username: string;
  password: string;
}

const basic = (account: Account) => ({
  authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}`,
});

/** Delivery API: each caller sees its own deliveries only (x-api-key: its workstream; Basic: platform callbacks). */
describe('Delivery API: scoped listing, detail with attempts, redelivery', () => {
  const suffix = randomUUID().slice(0, 8);
  const receiver = new LoopbackReceiver();
  const requester = new DeliveryRequester();
  let acme: Account;
  let other: Account;
  let acmeKey: string;
  let acmeOtherWorkstreamKey: string;
  let otherKey: string;
  let acmeWorkstream: string;
  const taskA = `task-a-${suffix}`;
  const taskB = `task-b-${suffix}`;
  const created: Record<string, DeliveryRequestedEvent> = {};

  const newWorkstreamKey = async (accountId: string) => {
    const workstream = await adminCreate<{ id: string }>('/workstreams', { account_id: accountId, name: `ws-${suffix}`, use_cases: [] });
    return { workstreamId: workstream.id, key: (await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {})).key };
  };

  const request = (name: string, event: Omit<DeliveryRequestedEvent, 'delivery_id' | 'url' | 'body'>) =>
    requester
      .request({ ...event, url: receiver.url(`/${name}-${suffix}`), body: JSON.stringify({ name }) })
      .then((e) => (created[name] = e));

  beforeAll(async () => {
    await receiver.start();
    // Keeps the delivery pending for the whole file: the receiver asks for ten minutes.
    receiver.respond(`/failing-${suffix}`, () => ({ status: 503, headers: { 'retry-after': '600' }, body: 'x'.repeat(3000) }));
    acme = await adminCreate<Account>('/accounts', { name: 'Acme' });
    other = await adminCreate<Account>('/accounts', { name: 'Other' });
    const acmeMain = await newWorkstreamKey(acme.id);
    acmeWorkstream = acmeMain.workstreamId;
    acmeKey = acmeMain.key;
    acmeOtherWorkstreamKey = (await newWorkstreamKey(acme.id)).key;
    otherKey = (await newWorkstreamKey(other.id)).key;
    const signed = { signing: 'x-svc-signature' as const, sealed_secret: requester.box.seal(acmeKey), event_type: 'task.result_available' };
    await request('a1', { ...signed, owner: { account_id: acme.id, workstream_id: acmeWorkstream }, subject: { task_id: taskA } });
    await request('a2', { ...signed, owner: { account_id: acme.id, workstream_id: acmeWorkstream }, subject: { task_id: taskA } });
    await request('b1', { ...signed, owner: { account_id: acme.id, workstream_id: acmeWorkstream }, subject: { task_id: taskB } });
    await request('failing', { ...signed, owner: { account_id: acme.id, workstream_id: acmeWorkstream }, subject: { task_id: taskB } });
    await request('run', {
      signing: 'none',
      event_type: 'run.processed',
      owner: { account_id: acme.id },
      subject: { run_id: `run-${suffix}` },
    });
    await eventually(() => ['a1', 'a2', 'b1', 'run', 'failing'].every((name) => receiver.on(`/${name}-${suffix}`).length > 0), {
      what: 'every delivery to be attempted',
      // Intake waits for a consumer-group rebalance when an earlier test has just stopped dispatcher instances.
      timeoutMs: 90_000,
    });
  });

  afterAll(async () => {
    await requester.close();
    await receiver.stop();
  });

  const get = <T>(path: string, headers: Record<string, string>) => http<T>('GET', path, { headers });

  it('401 without credentials or with wrong ones', async () => {
    const none = await get(`/v1/deliveries`, {});
    expect(none.status).toBe(401);
    expect(none.body).toEqual({ message: 'Missing credentials: send x-api-key or HTTP Basic credentials' });
    const badKey = await get(`/v1/deliveries/${created.a1.delivery_id}`, { 'x-api-key': 'wlk_nope' });
    expect(badKey.status).toBe(401);
    expect(badKey.body).toEqual({ message: 'Invalid x-api-key' });
    const badBasic = await get(`/v1/deliveries`, basic({ ...acme, password: 'wrong' }));
    expect(badBasic.status).toBe(401);
    expect(badBasic.body).toEqual({ message: 'Bad credentials' });
    const redeliver = await http('POST', `/v1/deliveries/${created.a1.delivery_id}/redeliver`);
    expect(redeliver.status).toBe(401);
  });

  it('lists the workstream key its deliveries, newest first, filtered by task and status', async () => {
    const all = await eventually(
      async () => {
        const page = await get<DeliveryPage>(`/v1/deliveries?task_id=${taskA}&status=delivered`, { 'x-api-key': acmeKey });
        return page.body.deliveries?.length === 2 ? page : undefined;
      },
      { what: 'both task A deliveries to be delivered' },
    );
    expect(all.status).toBe(200);
    expect(all.body.deliveries.map((d) => d.id).sort()).toEqual([created.a1.delivery_id, created.a2.delivery_id].sort());
    const times = all.body.deliveries.map((d) => d.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.body.next_cursor).toBeNull();
    const a2 = all.body.deliveries.find((d) => d.id === created.a2.delivery_id);
    expect(a2).toEqual({
      id: created.a2.delivery_id,
      event_type: 'task.result_available',
      task_id: taskA,
      run_id: null,
      url: receiver.url(`/a2-${suffix}`),
      status: 'delivered',
      attempt_count: 1,
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
      created_at: expect.any(String),
      delivered_at: expect.any(String),
      dead_at: null,
    });
    const failing = await get<DeliveryPage>(`/v1/deliveries?task_id=${taskB}&status=pending`, { 'x-api-key': acmeKey });
    expect(failing.body.deliveries.map((d) => d.id)).toEqual([created.failing.delivery_id]);
    expect(failing.body.deliveries[0]).toMatchObject({
      status: 'pending',
      last_status_code: 503,
      last_error: 'HTTP 503',
      next_attempt_at: expect.any(String),
    });
  });

  it('pages with limit and cursor', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = `/v1/deliveries?limit=1${cursor ? `&cursor=${cursor}` : ''}`;
      const page = await get<DeliveryPage>(query, { 'x-api-key': acmeKey });
      expect(page.status).toBe(200);
      expect(page.body.deliveries.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.deliveries.map((d) => d.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    const whole = await get<DeliveryPage>(`/v1/deliveries?limit=100`, { 'x-api-key': acmeKey });
    expect(whole.body.deliveries.map((d) => d.id)).toEqual(seen);
    expect([...seen].sort()).toEqual(['failing', 'b1', 'a2', 'a1'].map((name) => created[name].delivery_id).sort());
  });

  it('shows one delivery with its attempts, the answer cut to 1 KB', async () => {
    const detail = await eventually(
      async () => {
        const result = await get<DeliveryDetailView>(`/v1/deliveries/${created.failing.delivery_id}`, { 'x-api-key': acmeKey });
        return result.body.attempts?.length ? result : undefined;
      },
      { what: 'an attempt of the failing delivery' },
    );
    expect(detail.status).toBe(200);
    expect(detail.body.attempts[0]).toEqual({
      number: 1,
      attempted_at: expect.any(String),
      status_code: 503,
      duration_ms: expect.any(Number),
      error: 'HTTP 503',
      response_excerpt: 'x'.repeat(1024),
    });
  });

  it('404 for deliveries of another account, another workstream, or the other API family', async () => {
    const id = created.a1.delivery_id;
    for (const headers of [{ 'x-api-key': otherKey }, { 'x-api-key': acmeOtherWorkstreamKey }, basic(other), basic(acme)]) {
      const one = await get(`/v1/deliveries/${id}`, headers);
      expect(one.status).toBe(404);
      expect(one.body).toEqual({ message: `delivery ${id} not found` });
      const redeliver = await http('POST', `/v1/deliveries/${id}/redeliver`, { headers });
      expect(redeliver.status).toBe(404);
    }
    const theirs = await get<DeliveryPage>(`/v1/deliveries?task_id=${taskA}`, { 'x-api-key': otherKey });
    expect(theirs.body).toEqual({ deliveries: [], next_cursor: null });
    const runAsKey = await get(`/v1/deliveries/${created.run.delivery_id}`, { 'x-api-key': acmeKey });
    expect(runAsKey.status).toBe(404);
    expect(receiver.on(`/a1-${suffix}`)).toHaveLength(1);
  });

  it('shows platform callbacks to the account over HTTP Basic, and redelivers them', async () => {
    const page = await get<DeliveryPage>(`/v1/deliveries`, basic(acme));
    expect(page.status).toBe(200);
    expect(page.body.deliveries.map((d) => d.id)).toEqual([created.run.delivery_id]);
    expect(page.body.deliveries[0]).toMatchObject({ run_id: `run-${suffix}`, task_id: null, event_type: 'run.processed' });
    const redeliver = await http('POST', `/v1/deliveries/${created.run.delivery_id}/redeliver`, { headers: basic(acme) });
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id: created.run.delivery_id, status: 'pending' });
    await eventually(() => receiver.on(`/run-${suffix}`).length === 2, { what: 'the redelivered callback' });
  });

  it('422 naming the bad query parameter, 404 for an unknown delivery', async () => {
    const cases: [string, string][] = [
      ['status=lost', 'status'],
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['limit=many', 'limit'],
      ['cursor=garbage', 'cursor'],
      ['colour=blue', 'colour'],
    ];
    for (const [query, field] of cases) {
      const result = await get<{ message: string; errors: { field: string }[] }>(`/v1/deliveries?${query}`, { 'x-api-key': acmeKey });
      expect([query, result.status]).toEqual([query, 422]);
      expect(result.body.errors.map((e) => e.field)).toContain(field);
    }
    const unknown = await get(`/v1/deliveries/dlv_unknown`, { 'x-api-key': acmeKey });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ message: 'delivery dlv_unknown not found' });
  });
});

/**
 * A page of large deliveries: the list and the detail read only the columns they show (libs/webhook-dispatcher
 * DELIVERY_VIEW_COLUMNS, checked query by query in deliveries.service.spec.ts), so bodies of several
 * megabytes each cost the dispatcher nothing when a client lists them.
 */
describe('Delivery API over deliveries with multi-megabyte bodies', () => {
  const suffix = randomUUID().slice(0, 8);
  const receiver = new LoopbackReceiver();
  const requester = new DeliveryRequester();
  const BODY_BYTES = 4 * 1024 * 1024;
  const events: DeliveryRequestedEvent[] = [];
  let key: string;

  beforeAll(async () => {
    await receiver.start();
    // Pending for the whole file: each delivery is attempted once (the body is sent in full) and then waits.
    receiver.respond(`/large-${suffix}`, () => ({ status: 503, headers: { 'retry-after': '600' } }));
    const account = await adminCreate<{ id: string }>('/accounts', { name: 'Large Bodies' });
    const workstream = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name: `large-${suffix}`,
      use_cases: [],
    });
    key = (await adminCreate<{ key: string }>(`/workstreams/${workstream.id}/api-keys`, {})).key;
    for (let n = 0; n < 5; n++) {
      // Each body is distinct, so a mix-up between deliveries would show at the receiver.
      const body = JSON.stringify({ n, padding: String(n).repeat(BODY_BYTES) });
      events.push(
        await requester.request({
          owner: { account_id: account.id, workstream_id: workstream.id },
          subject: { task_id: `large-${n}-${suffix}` },
          event_type: 'task.result_available',
          signing: 'x-svc-signature',
          sealed_secret: requester.box.seal(key),
          url: receiver.url(`/large-${suffix}`),
          body,
        }),
      );
    }
    // Distinct bodies, not requests: one delivery attempted twice (e.g. a lease taken over) must not stand in for another.
    const attempted = () =>
      new Set(receiver.on(`/large-${suffix}`).map((request) => (JSON.parse(request.rawBody.toString('utf8')) as { n: number }).n)).size;
    await eventually(() => attempted() === 5, { what: 'each large delivery to be attempted', timeoutMs: 90_000 });
  });

  afterAll(async () => {
    await requester.close();
    await receiver.stop();
  });

  it('sends the bodies in full, and lists and shows the deliveries without them', async () => {
    const sent = receiver.on(`/large-${suffix}`).map((request) => (JSON.parse(request.rawBody.toString('utf8')) as { n: number }).n);
    expect([...new Set(sent)].sort()).toEqual([0, 1, 2, 3, 4]);
    for (const request of receiver.on(`/large-${suffix}`)) expect(request.rawBody.length).toBeGreaterThan(BODY_BYTES);

    const page = await http<DeliveryPage>('GET', '/v1/deliveries?limit=100', { headers: { 'x-api-key': key } });
    expect(page.status).toBe(200);
    expect(page.body.deliveries.map((d) => d.id).sort()).toEqual(events.map((e) => e.delivery_id).sort());
    for (const delivery of page.body.deliveries) {
      expect(Object.keys(delivery).sort()).toEqual(
        [
          'attempt_count',
          'created_at',
          'dead_at',
          'delivered_at',
          'event_type',
          'id',
          'last_error',
          'last_status_code',
          'next_attempt_at',
          'run_id',
          'status',
          'task_id',
          'url',
        ].sort(),
      );
      expect(delivery).toMatchObject({ status: 'pending', last_status_code: 503, url: receiver.url(`/large-${suffix}`) });
    }
    expect(JSON.stringify(page.body).length).toBeLessThan(10_000);

    const detail = await http<DeliveryDetailView>('GET', `/v1/deliveries/${events[0].delivery_id}`, { headers: { 'x-api-key': key } });
    expect(detail.status).toBe(200);
    expect(detail.body).toMatchObject({
      id: events[0].delivery_id,
      task_id: `large-0-${suffix}`,
      attempts: [expect.objectContaining({ number: 1, status_code: 503 })],
    });
    expect(detail.body).not.toHaveProperty('body');
  });
});
