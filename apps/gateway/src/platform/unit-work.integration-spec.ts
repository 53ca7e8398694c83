import { PrismaService } from '@workline/db';
import {
  type AppInstance,
  completeUnit,
  createPlatformAccount,
  createWorker,
  eventually,
  flagUnit,
  http,
  nextUnit,
  type PlatformAccount,
  startAppInstance,
  testStack,
} from '@workline/testing';

describe('work API for units: leases, complete, flag (real Kafka and PostgreSQL)', () => {
  const prisma = new PrismaService(testStack().databaseUrl);
  let account: PlatformAccount;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  const createRun = async (units: object[], line = account) => {
    const result = await http<{ id: string }>('POST', '/v4/runs', { headers: line.auth, body: { line_id: line.lineId, units } });
    expect(result.status).toBe(201);
    return result.body.id;
  };

  beforeAll(async () => {
    [account, alice, bob] = await Promise.all([createPlatformAccount('Work'), createWorker(), createWorker()]);
  });

  afterAll(() => prisma.$disconnect());

  it('next leases a unit (200 with its input), then 204 when nothing is left', async () => {
    const runId = await createRun([{ identifier: 'n1', text: { nested: [1, 2] } }]);
    const result = await http('POST', '/workforce/v1/assignments/next', { headers: alice, body: { kind: 'unit', line_id: account.lineId } });
    expect(result.status).toBe(200);
    expect(result.body).toEqual({
      assignment_id: expect.stringMatching(/^asgu_[0-9a-f]{32}$/),
      kind: 'unit',
      run_id: runId,
      line_id: account.lineId,
      input: { identifier: 'n1', text: { nested: [1, 2] } },
      lease_expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
    });
    const none = await http('POST', '/workforce/v1/assignments/next', { headers: bob, body: { kind: 'unit', line_id: account.lineId } });
    expect(none.status).toBe(204);
    expect(none.text).toBe('');
    const { assignment_id } = result.body as { assignment_id: string };
    expect((await completeUnit(alice, assignment_id, { output: { ok: 1 } })).status).toBe(200);
  });

  it('complete and flag validate their bodies (422 naming the field) and change nothing', async () => {
    await createRun([{ identifier: 'v1' }]);
    const assignment = (await nextUnit(alice, account.lineId))!;
    for (const [body, field] of [
      [{}, 'output'],
      [{ output: [1] }, 'output'],
      [{ output: 'text' }, 'output'],
      [{ output: null }, 'output'],
      [{ output: {}, extra: 1 }, 'extra'],
    ] as const) {
      const result = await completeUnit(alice, assignment.assignment_id, body);
      expect([body, result.status]).toEqual([body, 422]);
      expect(result.body).toMatchObject({ message: expect.stringContaining(field), errors: [expect.objectContaining({ field })] });
    }
    for (const body of [{}, { reason: '' }, { reason: 5 }]) {
      const result = await flagUnit(alice, assignment.assignment_id, body as never);
      expect(result.status).toBe(422);
    }
    const flagged = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/flag`, { headers: alice, body: { reason: 'blurry image' } });
    expect([flagged.status, flagged.body]).toEqual([200, { assignment_id: assignment.assignment_id, status: 'Flagged' }]);
  });

  it("completing twice is 409; someone else's assignment and an unknown one are 404", async () => {
    const runId = await createRun([{ identifier: 't1' }]);
    const assignment = (await nextUnit(alice, account.lineId))!;
    const stolen = await completeUnit(bob, assignment.assignment_id, { output: { by: 'bob' } });
    expect([stolen.status, stolen.body]).toEqual([404, { message: `assignment ${assignment.assignment_id} not found` }]);
    const unknown = await completeUnit(alice, 'asgu_0000', { output: {} });
    expect([unknown.status, unknown.body]).toEqual([404, { message: 'assignment asgu_0000 not found' }]);
    const done = await completeUnit(alice, assignment.assignment_id, { output: { by: 'alice' } });
    expect([done.status, done.body]).toEqual([200, { assignment_id: assignment.assignment_id, status: 'Completed' }]);
    const twice = await completeUnit(alice, assignment.assignment_id, { output: { by: 'alice', again: true } });
    expect([twice.status, twice.body]).toEqual([409, { message: `assignment ${assignment.assignment_id} is already completed` }]);
    const flagAfter = await flagUnit(alice, assignment.assignment_id, 'changed my mind');
    expect(flagAfter.status).toBe(409);
    const run = await http<{ status: string; units: { output: object }[] }>('GET', `/v4/runs/${runId}`, { headers: account.auth });
    expect(run.body.status).toBe('Processed');
    expect(run.body.units[0].output).toEqual({ by: 'alice' });
  });

  it('an expired lease puts the unit back: another worker gets it, the late complete is 409', async () => {
    const runId = await createRun([{ identifier: 'e1' }]);
    const first = (await nextUnit(alice, account.lineId))!;
    expect(await nextUnit(bob, account.lineId)).toBeUndefined();
    // Time travel instead of waiting 15 minutes: the lease ends now.
    await prisma.$executeRaw`update platform_unit set lease_expires_at = now() - interval '1 second' where lease_assignment_id = ${first.assignment_id}`;
    await prisma.$executeRaw`update platform_unit_assignment set expires_at = now() - interval '1 second' where id = ${first.assignment_id}`;
    const second = (await nextUnit(bob, account.lineId))!;
    expect(second).toMatchObject({ run_id: runId, input: { identifier: 'e1' } });
    expect(second.assignment_id).not.toBe(first.assignment_id);
    const late = await completeUnit(alice, first.assignment_id, { output: { by: 'alice' } });
    expect([late.status, late.body]).toEqual([
      409,
      { message: `assignment ${first.assignment_id} cannot be completed: its lease expired and the unit went back to the queue` },
    ]);
    expect((await completeUnit(bob, second.assignment_id, { output: { by: 'bob' } })).status).toBe(200);
    const run = await http<{ units: { output: object }[] }>('GET', `/v4/runs/${runId}`, { headers: account.auth });
    expect(run.body.units[0].output).toEqual({ by: 'bob' });
  });

  it('an expired lease nobody took yet still refuses the late complete (409)', async () => {
    await createRun([{ identifier: 'e2' }]);
    const first = (await nextUnit(alice, account.lineId))!;
    await prisma.$executeRaw`update platform_unit set lease_expires_at = now() - interval '1 second' where lease_assignment_id = ${first.assignment_id}`;
    await prisma.$executeRaw`update platform_unit_assignment set expires_at = now() - interval '1 second' where id = ${first.assignment_id}`;
    const late = await completeUnit(alice, first.assignment_id, { output: {} });
    expect(late.status).toBe(409);
    const again = (await nextUnit(alice, account.lineId))!;
    expect(again.input).toEqual({ identifier: 'e2' });
    expect((await completeUnit(alice, again.assignment_id, { output: {} })).status).toBe(200);
  });

  describe('with two gateways and two platform-runs instances', () => {
    let gateway2: AppInstance;
    let platform2: AppInstance;
    const port2 = Number(new URL(testStack().gatewayUrl).port) + 7;
    const gateway2Url = `http://127.0.0.1:${port2}`;

    beforeAll(async () => {
      gateway2 = startAppInstance('gateway', { PORT: String(port2) });
      platform2 = startAppInstance('platform-runs');
      await eventually(async () => (await fetch(`${gateway2Url}/health`).catch(() => undefined))?.status === 200, { what: 'the second gateway', timeoutMs: 60_000 });
    });

    afterAll(async () => {
      await Promise.all([gateway2?.stop(), platform2?.stop()]);
    });

    it('never gives one unit to two workers, and every unit is completed exactly once', async () => {
      const line = await createPlatformAccount('Concurrent');
      const units = Array.from({ length: 60 }, (_, i) => ({ identifier: `c${i}` }));
      const runId = await createRun(units, line);
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
});
