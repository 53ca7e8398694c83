import 'reflect-metadata';
import { verify } from '@workline/signature';
import {
  allDelivered,
  type AppInstance,
  consumerGroupMembers,
  dbQuery,
  deliveredCount,
  deliveryCounts,
  eventually,
  type ReceiverReply,
  disturbsOnly,
  startAppInstance,
  testStack,
  dispatcherFixture,
} from '@workline/testing';

const SECRET = 'wlk_dispatcher_instances_key';
const DISPATCHERS = 'workline-webhook-dispatcher';

/**
 * Several dispatcher instances, and their crashes, against real loopback receivers: each attempt is made
 * once with two instances; a delivery waiting out its Retry-After while every instance is down is made
 * again by the next one; and while receivers fail and time out on a share of requests and an instance is
 * SIGKILLed and restarted mid-run, every delivery arrives at least once and exactly one success is recorded.
 */
describe('webhook-dispatcher instances: shared work, crashes', () => {
  // It hands the dispatcher its deliveries over Kafka and reads their rows: it calls no other app.
  disturbsOnly(['webhook-dispatcher'], "adds dispatcher instances, SIGKILLs them and SIGSTOPs the stack's own", { calls: [] });
  const stack = testStack();
  const { suffix, requester, receiver, event, close } = dispatcherFixture(SECRET);
  const instances: AppInstance[] = [];

  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    await close();
  });

  it('makes each attempt once with two dispatcher instances', async () => {
    const second = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `second-${suffix}` });
    instances.push(second);
    await eventually(async () => (await consumerGroupMembers(DISPATCHERS)).some((id) => id.includes(`second-${suffix}`)) || undefined, {
      what: 'the second instance to join',
      timeoutMs: 60_000,
    });
    const hooks = await receiver();
    const paths = Array.from({ length: 40 }, (_, i) => `/pair-${suffix}-${i}`);
    // Some fail once, so retries too are spread over both instances.
    for (const [i, path] of paths.entries())
      hooks.respond(path, (_r, nth) => (i % 4 === 0 && nth === 1 ? { status: 500 } : { status: 200, delayMs: 50 }));
    const ids = await requester.requestAll(paths.map((path, i) => event(hooks.url(path), i)));
    await allDelivered(ids, 60_000);

    paths.forEach((path, i) => expect([path, hooks.on(path).length]).toEqual([path, i % 4 === 0 ? 2 : 1]));
    const rows = await deliveryCounts(ids);
    expect(rows.reduce((sum, row) => sum + row.attempts, 0)).toBe(50);
    expect(rows.every((row) => row.successes === 1)).toBe(true);
    await second.stop();
  });

  it('recovers the deliveries in backoff after every dispatcher instance died (SIGKILL), exactly once', async () => {
    const doomed = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `doomed-${suffix}` });
    instances.push(doomed);
    const hooks = await receiver();
    const path = `/crash-${suffix}`;
    hooks.respond(path, (_r, nth) => (nth === 1 ? { status: 503, headers: { 'retry-after': '3' } } : { status: 200, body: 'recovered' }));
    const [id] = await requester.requestAll([event(hooks.url(path), 0)]);
    await eventually(async () => (await deliveryCounts([id]))[0]?.attempt_count === 1 || undefined, {
      what: 'the first attempt to be recorded',
    });
    const stackDispatcher = stack.pids['webhook-dispatcher'];
    // While the delivery waits out its Retry-After, no dispatcher runs: the test stack's is paused and
    // the extra one is killed as in a crash.
    process.kill(stackDispatcher, 'SIGSTOP');
    try {
      doomed.kill();
      await doomed.stop();
      expect(hooks.on(path)).toHaveLength(1);
      const restarted = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `restarted-${suffix}` });
      instances.push(restarted);
      await allDelivered([id], 60_000);
      // The first attempt was the stack's instance's or the doomed one's; the second, the only one running.
      const attempts = await dbQuery<{ status_code: number; instance_id: string }>(
        'select status_code, instance_id from delivery_attempt where delivery_id = $1 order by number',
        [id],
      );
      expect(attempts.map((attempt) => attempt.status_code)).toEqual([503, 200]);
      expect(attempts[1].instance_id).toBe(`restarted-${suffix}`);
      await restarted.stop();
    } finally {
      process.kill(stackDispatcher, 'SIGCONT');
    }
    expect(hooks.on(path)).toHaveLength(2);
    expect(hooks.on(path)[1].headers['x-svc-delivery-id']).toBe(id);
  });

  it(
    'delivers each delivery at least once and records exactly one success, while receivers fail and a dispatcher is ' +
      'SIGKILLed and restarted',
    async () => {
      const victimId = `victim-${suffix}`;
      // The victim's leases are the shortest allowed, so what it held comes back sooner after the kill.
      const victim = startAppInstance('webhook-dispatcher', { INSTANCE_ID: victimId, WEBHOOK_LEASE_MS: '15000' });
      const survivor = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `survivor-${suffix}` });
      instances.push(victim, survivor);
      await eventually(
        async () => {
          const members = await consumerGroupMembers(DISPATCHERS);
          return [victimId, `survivor-${suffix}`].every((id) => members.some((member) => member.includes(id))) || undefined;
        },
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
      const ids = await requester.requestAll(inputs);

      // Mid-run: the victim has made attempts of its own, and much is still to do.
      await eventually(
        async () => {
          const [attempts] = await dbQuery<{ count: number }>(
            `select count(*)::int as count from delivery_attempt where instance_id = $1 and delivery_id = any($2)`,
            [victimId, ids],
          );
          return attempts.count >= 10 || undefined;
        },
        { what: 'the victim instance to make attempts', timeoutMs: 60_000 },
      );
      victim.kill();
      await victim.exited;
      const deliveredAtCrash = await deliveredCount(ids);
      expect(deliveredAtCrash).toBeLessThan(N);
      const restarted = startAppInstance('webhook-dispatcher', { INSTANCE_ID: `crash-restarted-${suffix}` });
      instances.push(restarted);

      // What the victim held stays leased until its lease (15 s) expires; then the others take it over.
      await allDelivered(ids, 180_000);
      const rows = await deliveryCounts(ids);
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
    },
    360_000,
  );
});
