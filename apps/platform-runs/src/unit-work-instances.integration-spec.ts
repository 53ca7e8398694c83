import { PrismaService } from '@workline/db';
import {
  consumerGroupMembers,
  createPlatformAccount,
  createWorker,
  DeliveryWatcher,
  eventually,
  http,
  LoopbackReceiver,
  startAppInstance,
  testStack,
  type UnitAssignment,
  disturbsOnly,
  type AppInstance,
  completeUnit,
  freePort,
  nextUnit,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

/**
 * The file disturbs platform-runs only, and calls the gateway besides: the run's one callback is checked where
 * platform-runs hands it over (its DeliveryRequested event), not at a receiver, so the file runs beside the
 * dispatcher's crash tests (libs/testing/src/stack-turns.ts).
 */
disturbsOnly(['platform-runs'], 'adds platform-runs instances (and a gateway) and SIGKILLs them while they hold reserved units', {
  calls: ['gateway'],
});

/**
 * Units with several platform-runs instances. platform-runs hands units out from memory under a short
 * reservation (docs/work-api.md, "Claims and completions in batches"). An instance killed (SIGKILL, no
 * shutdown hook) while it holds a reserved batch loses nothing: the units come back once the reservation
 * ends, and the run finishes with one callback. With two instances behind two gateways, no unit is leased to
 * two workers at once and each is completed once.
 */
describe('reserved units survive the SIGKILL of the platform-runs instance holding them', () => {
  const prisma = new PrismaService(testStack().databaseUrl);
  const receiver = new LoopbackReceiver();
  let deliveries: DeliveryWatcher;

  beforeAll(async () => {
    await receiver.start();
    deliveries = await DeliveryWatcher.start();
  });

  afterAll(async () => {
    await Promise.all([prisma.$disconnect(), receiver.stop(), deliveries.stop()]);
  });

  const next = async (worker: Record<string, string>, lineId: string) => {
    const result = await http<UnitAssignment>('POST', '/workforce/v1/assignments/next', {
      headers: worker,
      body: { kind: 'unit', line_id: lineId },
    });
    if (result.status !== 200 && result.status !== 204) throw new Error(`next answered ${result.status}: ${result.text}`);
    return { assignment: result.status === 200 ? result.body : undefined };
  };

  it('units reserved by the killed instance are leased again after their reservation ends; every unit completed once', async () => {
    const instanceId = `reserving-${randomUUID().slice(0, 8)}`;
    const doomed = startAppInstance('platform-runs', {
      INSTANCE_ID: instanceId,
      UNIT_RESERVATION_SECONDS: '3',
      // Everything it claims beyond the request it serves stays reserved in its memory.
      UNIT_CLAIM_AHEAD: '100',
      // The broker's shortest session (group.min.session.timeout.ms): its partitions move on soonest after the kill.
      KAFKA_SESSION_TIMEOUT_MS: '6000',
    });
    try {
      await eventually(async () => (await fetch(`${await doomed.opsUrl()}/health/ready`)).status === 200, {
        what: 'the extra platform-runs instance',
        timeoutMs: 90_000,
        intervalMs: 500,
      });
      const line = await createPlatformAccount('Reservations');
      const worker = await createWorker();
      const units = Array.from({ length: 40 }, (_, i) => ({ identifier: `r${i}` }));
      const created = await http<{ id: string }>('POST', '/v4/runs', {
        headers: line.auth,
        body: { line_id: line.lineId, callback_url: receiver.url('/reserved'), units },
      });
      expect(created.status).toBe(201);
      const runId = created.body.id;

      // Lease units one by one until a `next` reached the extra instance: it then holds the rest reserved.
      const leased: UnitAssignment[] = [];
      const reservedByDoomed = async () =>
        prisma.productionUnit.findMany({ where: { runId, reservedBy: { startsWith: `${instanceId}:` } }, select: { seq: true } });
      let reserved = await reservedByDoomed();
      for (let i = 0; i < 60 && !reserved.length; i++) {
        const { assignment } = await next(worker, line.lineId);
        if (assignment) leased.push(assignment);
        reserved = await reservedByDoomed();
      }
      expect(reserved.length).toBeGreaterThan(0);
      doomed.kill();
      expect(await doomed.exited).toBeNull();
      // Its partitions move to the stack's instance once its session ends (6 s): requests sent meanwhile would time out.
      await eventually(
        async () => ((await consumerGroupMembers('workline-platform-runs')).some((id) => id.includes(instanceId)) ? undefined : true),
        {
          what: 'the killed instance to leave the consumer group',
          timeoutMs: 60_000,
          intervalMs: 500,
        },
      );

      // The leases given before the kill stand; then every other unit, the reserved ones included, is handed out and completed.
      for (const assignment of leased)
        expect(
          (
            await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/complete`, {
              headers: worker,
              body: { output: { n: 1 } },
            })
          ).status,
        ).toBe(200);
      const completedSeqs: number[] = [];
      for (;;) {
        const { assignment } = await next(worker, line.lineId);
        if (!assignment) break;
        const done = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/complete`, {
          headers: worker,
          body: { output: { n: 2 } },
        });
        expect(done.status).toBe(200);
        completedSeqs.push(Number(String(assignment.input.identifier).slice(1)));
      }
      // The units the dead instance held were handed out again (by the stack's own instance), none lost.
      expect(completedSeqs).toEqual(expect.arrayContaining(reserved.map((unit) => unit.seq)));
      expect(leased.length + completedSeqs.length).toBe(units.length);

      const run = await http<{ status: string; units: { meta: { status: string } }[] }>('GET', `/v4/runs/${runId}`, { headers: line.auth });
      expect(run.body.status).toBe('Processed');
      expect(run.body.units.map((unit) => unit.meta.status)).toEqual(units.map(() => 'Completed'));
      const outcomes = await prisma.unitAssignment.groupBy({ by: ['seq'], where: { runId, outcome: { not: null } }, _count: true });
      expect(outcomes.map((row) => row._count)).toEqual(units.map(() => 1));
      // Exactly one callback handed to the dispatcher (which delivers it: its own suites).
      await deliveries.first(runId);
      expect(deliveries.of(runId)).toHaveLength(1);
      expect(await prisma.productionUnit.count({ where: { runId, reservedBy: { not: null } } })).toBe(0);
    } finally {
      doomed.kill();
    }
  });
});

describe('units with two gateways and two platform-runs instances', () => {
  const prisma = new PrismaService(testStack().databaseUrl);
  let gateway2: AppInstance;
  let platform2: AppInstance;
  let gateway2Url: string;
  let line: Awaited<ReturnType<typeof createPlatformAccount>>;

  beforeAll(async () => {
    const port2 = await freePort();
    gateway2Url = `http://127.0.0.1:${port2}`;
    gateway2 = startAppInstance('gateway', { PORT: String(port2) });
    platform2 = startAppInstance('platform-runs');
    line = await createPlatformAccount('Concurrent');
    // Serving platform calls (its /health would ask every service, and this file calls platform-runs only).
    await eventually(
      async () => (await fetch(`${gateway2Url}/v4/lines`, { headers: line.auth }).catch(() => undefined))?.status === 200 || undefined,
      { what: 'the second gateway to serve GET /v4/lines', timeoutMs: 60_000, intervalMs: 250 },
    );
  });

  afterAll(async () => {
    await Promise.all([gateway2?.stop(), platform2?.stop(), prisma.$disconnect()]);
  });

  it('never gives one unit to two workers, and every unit is completed exactly once', async () => {
    const units = Array.from({ length: 60 }, (_, i) => ({ identifier: `c${i}` }));
    const created = await http<{ id: string }>('POST', '/v4/runs', { headers: line.auth, body: { line_id: line.lineId, units } });
    expect(created.status).toBe(201);
    const runId = created.body.id;
    const workers = await Promise.all(Array.from({ length: 8 }, () => createWorker()));
    const held = new Map<string, string>();
    const clashes: string[] = [];
    const completedBy: string[] = [];
    await Promise.all(
      workers.map(async (worker, w) => {
        const base = w % 2 ? gateway2Url : testStack().gatewayUrl;
        for (let a = await nextUnit(worker, line.lineId, base); a; a = await nextUnit(worker, line.lineId, base)) {
          const id = String(a.input.identifier);
          if (held.has(id)) clashes.push(`${id} held by ${held.get(id)} and ${w}`);
          held.set(id, String(w));
          const result = await completeUnit(worker, a.assignment_id, { output: { by: w } }, base);
          expect(result.status).toBe(200);
          held.delete(id);
          completedBy.push(id);
        }
      }),
    );
    expect(clashes).toEqual([]);
    expect(completedBy.sort()).toEqual(units.map((u) => u.identifier).sort());
    const run = await http<{ status: string; units: { meta: { status: string } }[] }>('GET', `/v4/runs/${runId}`, { headers: line.auth });
    expect(run.body.status).toBe('Processed');
    expect(run.body.units.every((u) => u.meta.status === 'Completed')).toBe(true);
    const leases = await prisma.unitAssignment.count({ where: { runId } });
    expect(leases).toBe(60);
  });
});
