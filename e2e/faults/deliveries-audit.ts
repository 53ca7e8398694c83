import { dbQuery, eventually, type LoopbackReceiver, type ReceivedRequest } from '@workline/testing';

/** The X-SVC-Delivery-Id values of some received requests (repeats of one are the documented at-least-once window). */
export const deliveryIdsOf = (requests: ReceivedRequest[]): Set<string> =>
  new Set(requests.map((r) => String(r.headers['x-svc-delivery-id'])));

/** What the delivery tables say of a scenario's deliveries. */
export interface DeliveriesAudit {
  /** The body each delivery row holds, by delivery id. */
  bodies: Map<string, string>;
  deliveries: number;
  /** Attempts answered with a status that is not 2xx. */
  failedAttempts: number;
  /** Attempts without an answer: a timeout, a reset, a refused connection. */
  erroredAttempts: number;
  /** Those the dispatcher gave up on after its attempt timeout ("timed out after 5000 ms"). */
  timedOutAttempts: number;
}

/**
 * The deliveries of a scenario (its oversight workstream's webhooks and its runs' callbacks), once all are
 * delivered: every request a receiver got on `paths` is byte for byte the body of its delivery row; each
 * delivery has exactly one success recorded per delivery round (one, plus one per redelivery answered 202;
 * a retried redelivery request may have started one more; a request's replay by the next owner of its
 * partition, after a dispatcher was killed before committing its offset, is applied once: docs/decisions.md,
 * RPC topics); every redelivered delivery arrived again; attempts that failed, went unanswered and timed out
 * were recorded (the scenarios' receivers fail, answer late or are cut off: each kind must have happened).
 */
export async function auditDeliveries(scenario: {
  workstreamId: string;
  runIds: string[];
  receiver: LoopbackReceiver;
  paths: string[];
  /** Deliveries redelivered, with how many requests each redelivery took. */
  redeliveries: Map<string, number>;
}): Promise<DeliveriesAudit> {
  const { workstreamId, runIds, receiver, paths, redeliveries } = scenario;
  const scope = 'workstream_id = $1 or run_id = any($2::text[])';
  await eventually(
    async () =>
      (
        await dbQuery<{ n: number }>(`select count(*)::int as n from delivery where (${scope}) and status <> 'delivered'`, [
          workstreamId,
          runIds,
        ])
      )[0].n === 0,
    { what: 'every delivery to be delivered', timeoutMs: 180_000, intervalMs: 1000 },
  );
  const bodies = new Map(
    (await dbQuery<{ id: string; body: string }>(`select id, body from delivery where ${scope}`, [workstreamId, runIds])).map((d) => [
      d.id,
      d.body,
    ]),
  );
  const received = paths.flatMap((path) => receiver.on(path));
  expect(
    received.filter((r) => bodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8')).map((r) => r.path),
  ).toEqual([]);
  const attempts = await dbQuery<{ id: string; ok: number; failed: number; errors: number; timeouts: number }>(
    `select d.id, count(a.number) filter (where a.status_code between 200 and 299)::int as ok,
          count(a.number) filter (where a.status_code >= 300)::int as failed,
          count(a.number) filter (where a.status_code is null)::int as errors,
          count(a.number) filter (where a.status_code is null and a.error like 'timed out after %')::int as timeouts
     from delivery d left join delivery_attempt a on a.delivery_id = d.id
    where d.workstream_id = $1 or d.run_id = any($2::text[]) group by d.id`,
    [workstreamId, runIds],
  );
  expect(attempts.length).toBe(bodies.size);
  expect(
    attempts.filter((d) => {
      const asked = redeliveries.get(d.id);
      return asked === undefined ? d.ok !== 1 : d.ok < 2 || d.ok > 1 + asked;
    }),
  ).toEqual([]);
  const receivedIds = receiver.requests.map((r) => String(r.headers['x-svc-delivery-id']));
  expect([...redeliveries.keys()].filter((id) => receivedIds.filter((received) => received === id).length < 2)).toEqual([]);
  const sum = (field: 'failed' | 'errors' | 'timeouts') => attempts.reduce((total, d) => total + d[field], 0);
  const audit = {
    bodies,
    deliveries: bodies.size,
    failedAttempts: sum('failed'),
    erroredAttempts: sum('errors'),
    timedOutAttempts: sum('timeouts'),
  };
  expect(audit.erroredAttempts).toBeGreaterThan(0);
  expect(audit.timedOutAttempts).toBeGreaterThan(0);
  return audit;
}
