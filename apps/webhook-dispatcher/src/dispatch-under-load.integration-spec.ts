import 'reflect-metadata';
import { verify } from '@workline/signature';
import {
  type AppInstance,
  consumerGroupMembers,
  DeliveryRequester,
  type DeliveryRequestInput,
  eventually,
  LoopbackReceiver,
  type ReceiverReply,
  startAppInstance,
  testStack,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';

/** The dispatcher's default WEBHOOK_ORIGIN_CONCURRENCY (the test stack keeps it). */
const ORIGIN_CONCURRENCY = 8;
const SECRET = 'wlk_dispatch_under_load_key';

/**
 * The dispatcher under load, against real loopback receivers: keep-alive connections are reused (TCP
 * connections counted at the receiver), a saturated slow receiver does not hold up a fast one (the
 * per-origin cap), and while receivers fail a share of requests and a dispatcher instance is SIGKILLed
 * and restarted mid-run, every delivery arrives at least once and exactly one success is recorded for each.
 */
describe('webhook-dispatcher under load: connection reuse, per-origin caps, crashes', () => {
  const stack = testStack();
  const suffix = randomUUID().slice(0, 8);
  const requester = new DeliveryRequester();
  const db = new Pool({ connectionString: stack.databaseUrl, max: 2 });
  const receivers: LoopbackReceiver[] = [];
  const instances: AppInstance[] = [];

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await requester.close();
    await Promise.all(receivers.map((receiver) => receiver.stop()));
    await db.end();
  });

  const receiver = async () => {
    const started = await new LoopbackReceiver().start();
    receivers.push(started);
    return started;
  };

  const sealed = requester.box.seal(SECRET);
  const event = (url: string, n: number): DeliveryRequestInput => ({
    owner: { account_id: `acct-${suffix}` },
    subject: { task_id: `task-${suffix}-${n}` },
    event_type: 'task.result_available',
    url,
    body: JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available', n, note: 'exact bytes ✓' }),
    signing: 'x-svc-signature',
    sealed_secret: sealed,
  });

  /** Publishes the deliveries (in parallel chunks, like a busy outbox relay) and returns their ids in order. */
  async function requestAll(inputs: DeliveryRequestInput[]): Promise<string[]> {
    const ids: string[] = [];
    for (let from = 0; from < inputs.length; from += 50) {
      const sent = await Promise.all(inputs.slice(from, from + 50).map((input) => requester.request(input)));
      ids.push(...sent.map((e) => e.delivery_id));
    }
    return ids;
  }

  interface DeliveryCounts {
    id: string;
    status: string;
    attempt_count: number;
    attempts: number;
    successes: number;
  }

  const counts = async (ids: string[]) =>
    (
      await db.query<DeliveryCounts>(
        `select d.id, d.status, d.attempt_count, count(a.number)::int as attempts,
           (count(a.number) filter (where a.status_code between 200 and 299))::int as successes
         from delivery d left join delivery_attempt a on a.delivery_id = d.id
         where d.id = any($1) group by d.id`,
        [ids],
      )
    ).rows;

  const delivered = async (ids: string[]) => (await counts(ids)).filter((row) => row.status === 'delivered').length;

  const allDelivered = (ids: string[], timeoutMs: number) =>
    eventually(async () => (await delivered(ids)) === ids.length, {
      what: `${ids.length} deliveries to be delivered`,
      timeoutMs,
      intervalMs: 250,
    });

  it('reuses keep-alive connections: a burst of deliveries to one receiver takes a handful of TCP connections', async () => {
    const hooks = await receiver();
    const ids = await requestAll(Array.from({ length: 200 }, (_, n) => event(hooks.url('/reuse'), n)));
    await allDelivered(ids, 60_000);

    expect(hooks.on('/reuse')).toHaveLength(200);
    // One dispatcher instance makes at most ORIGIN_CONCURRENCY attempts at once to this origin, each on a
    // pooled connection; a connection per POST would have been 200.
    expect(hooks.connections).toBeGreaterThanOrEqual(1);
    expect(hooks.connections).toBeLessThanOrEqual(2 * ORIGIN_CONCURRENCY);
    for (const request of hooks.on('/reuse'))
      expect(verify(String(request.headers['x-svc-signature']), request.rawBody, SECRET)).toMatchObject({ ok: true });
    console.log(`connection reuse: ${hooks.on('/reuse').length} deliveries over ${hooks.connections} TCP connections`);
  });

  it('keeps deliveries to a fast receiver flowing while a slow one is saturated, never over its per-origin cap', async () => {
    const slow = await receiver();
    const fast = await receiver();
    let slowInFlight = 0;
    let slowMaxInFlight = 0;
    slow.respond('/slow', () => {
      slowMaxInFlight = Math.max(slowMaxInFlight, ++slowInFlight);
      setTimeout(() => slowInFlight--, 2_500);
      return { status: 200, delayMs: 2_500 };
    });
    const slowIds = await requestAll(Array.from({ length: 48 }, (_, n) => event(slow.url('/slow'), n)));
    await eventually(() => slow.on('/slow').length >= ORIGIN_CONCURRENCY, { what: 'the slow receiver to be saturated' });

    const fastIds = await requestAll(Array.from({ length: 40 }, (_, n) => event(fast.url('/fast'), n)));
    await allDelivered(fastIds, 60_000);
    const slowAnsweredMeanwhile = await delivered(slowIds);
    // Every fast delivery went through while most of the slow ones still waited for their turn.
    expect(slowAnsweredMeanwhile).toBeLessThan(slowIds.length);
    expect(fast.on('/fast')).toHaveLength(40);

    await allDelivered(slowIds, 90_000);
    expect(slowMaxInFlight).toBeLessThanOrEqual(ORIGIN_CONCURRENCY);
    console.log(
      `per-origin cap: 40 fast deliveries done while ${slowAnsweredMeanwhile} of 48 slow ones were; at most ${slowMaxInFlight} slow requests at once`,
    );
  });

  it('delivers each delivery at least once and records exactly one success, while receivers fail and a dispatcher is SIGKILLed and restarted', async () => {
    const victimId = `victim-${suffix}`;
    const victim = startAppInstance('webhook-dispatcher', { INSTANCE_ID: victimId });
    const survivor = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `survivor-${suffix}` });
    instances.push(victim, survivor);
    await eventually(
      async () =>
        (await consumerGroupMembers('workline-webhook-dispatcher')).filter((id) => id.includes(suffix)).length === 2 ? true : undefined,
      {
        what: 'both extra dispatcher instances to join their group',
        timeoutMs: 90_000,
        intervalMs: 500,
      },
    );

    // Three receivers (three origins), each answering per delivery: 30 % a 500 first, 5 % too slow first
    // (6 s: over the 5 s timeout), then 200; every answer takes 300 ms, so the run lasts seconds.
    const hooks = await Promise.all([receiver(), receiver(), receiver()]);
    const answeredOk = new Map<string, number>();
    const plan = (n: number, nth: number): ReceiverReply => {
      if (nth === 1 && n % 10 < 3) return { status: 500, body: 'failing on purpose', delayMs: 300 };
      if (nth === 1 && n % 20 === 3) return { status: 200, delayMs: 6_000 };
      return { status: 200, body: 'ok', delayMs: 300 };
    };
    const N = 600;
    const inputs = Array.from({ length: N }, (_, n) => {
      const hook = hooks[n % hooks.length];
      const path = `/fault/${n}`;
      hook.respond(path, (request, nth) => {
        const reply = plan(n, nth);
        if (reply.status === 200 && reply.delayMs! < 5_000) {
          const id = String(request.headers['x-svc-delivery-id']);
          answeredOk.set(id, (answeredOk.get(id) ?? 0) + 1);
        }
        return reply;
      });
      return event(hook.url(path), n);
    });
    const ids = await requestAll(inputs);

    // Mid-run: the victim has made attempts of its own, and much is still to do.
    await eventually(
      async () => {
        const { rows } = await db.query<{ count: number }>(
          `select count(*)::int as count from delivery_attempt where instance_id = $1 and delivery_id = any($2)`,
          [victimId, ids],
        );
        return rows[0].count >= 10 || undefined;
      },
      { what: 'the victim instance to make attempts', timeoutMs: 60_000 },
    );
    victim.kill();
    await victim.exited;
    const deliveredAtCrash = await delivered(ids);
    expect(deliveredAtCrash).toBeLessThan(N);
    const restarted = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `restarted-${suffix}` });
    instances.push(restarted);

    // What the victim held stays leased until its lease (30 s) expires; then the others take it over.
    await allDelivered(ids, 180_000);
    const rows = await counts(ids);
    expect(rows).toHaveLength(N);
    for (const row of rows) {
      expect({ id: row.id, status: row.status, successes: row.successes, attempts: row.attempts }).toEqual({
        id: row.id,
        status: 'delivered',
        successes: 1,
        attempts: row.attempt_count,
      });
    }
    for (const id of ids) expect([id, (answeredOk.get(id) ?? 0) >= 1]).toEqual([id, true]);
    const requests = hooks.flatMap((hook) => hook.requests);
    for (const request of requests)
      expect(verify(String(request.headers['x-svc-signature']), request.rawBody, SECRET)).toMatchObject({ ok: true });

    const repeats = [...answeredOk.values()].filter((count) => count > 1).length;
    const attempts = rows.reduce((sum, row) => sum + row.attempts, 0);
    console.log(
      `crash run: ${N} deliveries, ${deliveredAtCrash} delivered when the victim was killed, ${attempts} attempts recorded, ` +
        `${requests.length} requests received over ${hooks.reduce((sum, hook) => sum + hook.connections, 0)} connections, ` +
        `${repeats} deliveries answered 2xx more than once (the crash window)`,
    );
    await Promise.all([survivor.stop(), restarted.stop()]);
  }, 360_000);
});
