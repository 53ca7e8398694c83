import 'reflect-metadata';
import type { QueryOf, Schemas, WorklineClient } from '@workline/client';
import type { DeliveryRequestedEvent } from '@workline/contracts';
import {
  adminClient,
  apiClient,
  DeliveryRequester,
  eventually,
  fieldErrors,
  http,
  LoopbackReceiver,
  newAccountId,
  newWorkstreamWithKey,
  ok,
  platformClient,
  withStatus,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

type Account = Schemas['NewAccountAnswer'];
type DeliveryQuery = QueryOf<'getV1Deliveries'>;

const asKey = (key: string) => apiClient({ apiKey: key });
const listDeliveries = (caller: WorklineClient, query: DeliveryQuery = {}) =>
  withStatus(caller.GET('/v1/deliveries', { params: { query } }));
const deliveryOf = (caller: WorklineClient, id: string) => withStatus(caller.GET('/v1/deliveries/{id}', { params: { path: { id } } }));
const redeliver = (caller: WorklineClient, id: string) =>
  withStatus(caller.POST('/v1/deliveries/{id}/redeliver', { params: { path: { id } } }));

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
    const { ws, key } = await newWorkstreamWithKey({ account_id: accountId, name: `ws-${suffix}`, use_cases: [] });
    return { workstreamId: ws, key };
  };
  const newAccount = (name: string) => ok(adminClient().POST('/admin/v1/accounts', { body: { name } }), 201);

  const request = (name: string, event: Omit<DeliveryRequestedEvent, 'delivery_id' | 'url' | 'body'>) =>
    requester
      .request({ ...event, url: receiver.url(`/${name}-${suffix}`), body: JSON.stringify({ name }) })
      .then((e) => (created[name] = e));

  beforeAll(async () => {
    await receiver.start();
    // Keeps the delivery pending for the whole file: the receiver asks for ten minutes.
    receiver.respond(`/failing-${suffix}`, () => ({ status: 503, headers: { 'retry-after': '600' }, body: 'x'.repeat(3000) }));
    acme = await newAccount('Acme');
    other = await newAccount('Other');
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

  it('401 without credentials or with wrong ones', async () => {
    const none = await listDeliveries(apiClient());
    expect(none.status).toBe(401);
    expect(none.error).toEqual({ message: 'Missing credentials: send x-api-key or HTTP Basic credentials' });
    const badKey = await deliveryOf(asKey('wlk_nope'), created.a1.delivery_id);
    expect(badKey.status).toBe(401);
    expect(badKey.error).toEqual({ message: 'Invalid x-api-key' });
    const badBasic = await listDeliveries(platformClient({ ...acme, password: 'wrong' }));
    expect(badBasic.status).toBe(401);
    expect(badBasic.error).toEqual({ message: 'Bad credentials' });
    expect((await redeliver(apiClient(), created.a1.delivery_id)).status).toBe(401);
  });

  it('lists the workstream key its deliveries, newest first, filtered by task and status', async () => {
    const all = await eventually(
      async () => {
        const page = await ok(listDeliveries(asKey(acmeKey), { task_id: taskA, status: 'delivered' }), 200);
        return page.deliveries.length === 2 ? page : undefined;
      },
      { what: 'both task A deliveries to be delivered' },
    );
    expect(all.deliveries.map((d) => d.id).sort()).toEqual([created.a1.delivery_id, created.a2.delivery_id].sort());
    const times = all.deliveries.map((d) => d.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.next_cursor).toBeNull();
    const a2 = all.deliveries.find((d) => d.id === created.a2.delivery_id);
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
    const failing = await ok(listDeliveries(asKey(acmeKey), { task_id: taskB, status: 'pending' }), 200);
    expect(failing.deliveries.map((d) => d.id)).toEqual([created.failing.delivery_id]);
    expect(failing.deliveries[0]).toMatchObject({
      status: 'pending',
      last_status_code: 503,
      last_error: 'HTTP 503',
      next_attempt_at: expect.any(String),
    });
  });

  it('pages with limit and cursor', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await ok(listDeliveries(asKey(acmeKey), { limit: 1, cursor }), 200);
      expect(page.deliveries.length).toBeLessThanOrEqual(1);
      seen.push(...page.deliveries.map((d) => d.id));
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    const whole = await ok(listDeliveries(asKey(acmeKey), { limit: 100 }), 200);
    expect(whole.deliveries.map((d) => d.id)).toEqual(seen);
    expect([...seen].sort()).toEqual(['failing', 'b1', 'a2', 'a1'].map((name) => created[name].delivery_id).sort());
  });

  it('shows one delivery with its attempts, the answer cut to 1 KB', async () => {
    const detail = await eventually(
      async () => {
        const result = await deliveryOf(asKey(acmeKey), created.failing.delivery_id);
        return result.data?.attempts.length ? result : undefined;
      },
      { what: 'an attempt of the failing delivery' },
    );
    expect(detail.status).toBe(200);
    expect(detail.data?.attempts[0]).toEqual({
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
    for (const caller of [asKey(otherKey), asKey(acmeOtherWorkstreamKey), platformClient(other), platformClient(acme)]) {
      const one = await deliveryOf(caller, id);
      expect(one.status).toBe(404);
      expect(one.error).toEqual({ message: `delivery ${id} not found` });
      expect((await redeliver(caller, id)).status).toBe(404);
    }
    const theirs = await listDeliveries(asKey(otherKey), { task_id: taskA });
    expect(theirs.data).toEqual({ deliveries: [], next_cursor: null });
    const runAsKey = await deliveryOf(asKey(acmeKey), created.run.delivery_id);
    expect(runAsKey.status).toBe(404);
    expect(receiver.on(`/a1-${suffix}`)).toHaveLength(1);
  });

  it('shows platform callbacks to the account over HTTP Basic, and redelivers them', async () => {
    const page = await ok(listDeliveries(platformClient(acme)), 200);
    expect(page.deliveries.map((d) => d.id)).toEqual([created.run.delivery_id]);
    expect(page.deliveries[0]).toMatchObject({ run_id: `run-${suffix}`, task_id: null, event_type: 'run.processed' });
    const again = await redeliver(platformClient(acme), created.run.delivery_id);
    expect(again.status).toBe(202);
    expect(again.data).toMatchObject({ id: created.run.delivery_id, status: 'pending' });
    await eventually(() => receiver.on(`/run-${suffix}`).length === 2, { what: 'the redelivered callback' });
  });

  it('422 naming the bad query parameter, 404 for an unknown delivery', async () => {
    const cases: [DeliveryQuery, string][] = [
      [{ limit: 0 }, 'limit'],
      [{ limit: 101 }, 'limit'],
      [{ cursor: 'garbage' }, 'cursor'],
    ];
    for (const [query, field] of cases) {
      const result = await listDeliveries(asKey(acmeKey), query);
      expect([query, result.status]).toEqual([query, 422]);
      expect(fieldErrors(result)?.map((e) => e.field)).toContain(field);
    }
    // A status outside the documented enum, a limit that is no number, an unknown parameter: raw http().
    const rawCases: [string, string][] = [
      ['status=lost', 'status'],
      ['limit=many', 'limit'],
      ['colour=blue', 'colour'],
    ];
    for (const [query, field] of rawCases) {
      const result = await http<{ message: string; errors: { field: string }[] }>('GET', `/v1/deliveries?${query}`, {
        headers: { 'x-api-key': acmeKey },
      });
      expect([query, result.status]).toEqual([query, 422]);
      expect(result.body.errors.map((e) => e.field)).toContain(field);
    }
    const unknown = await deliveryOf(asKey(acmeKey), 'dlv_unknown');
    expect(unknown.status).toBe(404);
    expect(unknown.error).toEqual({ message: 'delivery dlv_unknown not found' });
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
    const accountId = await newAccountId('Large Bodies');
    const workstream = await newWorkstreamWithKey({ account_id: accountId, name: `large-${suffix}`, use_cases: [] });
    key = workstream.key;
    for (let n = 0; n < 5; n++) {
      // Each body is distinct, so a mix-up between deliveries would show at the receiver.
      const body = JSON.stringify({ n, padding: String(n).repeat(BODY_BYTES) });
      events.push(
        await requester.request({
          owner: { account_id: accountId, workstream_id: workstream.ws },
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

    const page = await ok(listDeliveries(asKey(key), { limit: 100 }), 200);
    expect(page.deliveries.map((d) => d.id).sort()).toEqual(events.map((e) => e.delivery_id).sort());
    for (const delivery of page.deliveries) {
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
    expect(JSON.stringify(page).length).toBeLessThan(10_000);

    const detail = await ok(deliveryOf(asKey(key), events[0].delivery_id), 200);
    expect(detail).toMatchObject({
      id: events[0].delivery_id,
      task_id: `large-0-${suffix}`,
      attempts: [expect.objectContaining({ number: 1, status_code: 503 })],
    });
    expect(detail).not.toHaveProperty('body');
  });
});
