import 'reflect-metadata';
import { verify } from '@workline/signature';
import { allDelivered, deliveredCount, eventually, dispatcherFixture } from '@workline/testing';

/** The dispatcher's default WEBHOOK_ORIGIN_CONCURRENCY (the test stack keeps it). */
const ORIGIN_CONCURRENCY = 8;
const SECRET = 'wlk_dispatch_connections_key';

/**
 * The dispatcher's connections under load, against real loopback receivers: keep-alive connections are
 * reused (TCP connections counted at the receiver), and a saturated slow receiver does not hold up a fast
 * one (the per-origin cap). Crashes and several instances: dispatcher-instances.integration-spec.ts.
 */
describe('webhook-dispatcher under load: connection reuse and per-origin caps', () => {
  const { requester, receiver, event, close } = dispatcherFixture(SECRET);

  afterAll(async () => {
    await close();
  });

  it('reuses keep-alive connections: a burst of deliveries to one receiver takes a handful of TCP connections', async () => {
    const hooks = await receiver();
    const ids = await requester.requestAll(Array.from({ length: 200 }, (_, n) => event(hooks.url('/reuse'), n)));
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
    const slowIds = await requester.requestAll(Array.from({ length: 48 }, (_, n) => event(slow.url('/slow'), n)));
    await eventually(() => slow.on('/slow').length >= ORIGIN_CONCURRENCY, { what: 'the slow receiver to be saturated' });

    const fastIds = await requester.requestAll(Array.from({ length: 40 }, (_, n) => event(fast.url('/fast'), n)));
    await allDelivered(fastIds, 60_000);
    const slowAnsweredMeanwhile = await deliveredCount(slowIds);
    // Every fast delivery went through while most of the slow ones still waited for their turn.
    expect(slowAnsweredMeanwhile).toBeLessThan(slowIds.length);
    expect(fast.on('/fast')).toHaveLength(40);

    await allDelivered(slowIds, 90_000);
    expect(slowMaxInFlight).toBeLessThanOrEqual(ORIGIN_CONCURRENCY);
    console.log(
      `per-origin cap: 40 fast deliveries done while ${slowAnsweredMeanwhile} of 48 slow ones were; at most ` +
        `${slowMaxInFlight} slow requests at once`,
    );
  });
});
