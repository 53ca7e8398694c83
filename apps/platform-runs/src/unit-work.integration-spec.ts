import { PrismaService } from '@workline/db';
import {
  completeUnit,
  createPlatformAccount,
  createWorker,
  flagUnit,
  http,
  nextUnit,
  type PlatformAccount,
  takesTurnOn,
  testStack,
  type UnitAssignment,
} from '@workline/testing';

describe('work API for units: leases, complete, flag (real Kafka and PostgreSQL)', () => {
  // A complete may ask for the next task (`next: {kind: 'task'}`) and lease one: not another file's, left queued on purpose.
  takesTurnOn('oversight task queue');
  const prisma = new PrismaService(testStack().databaseUrl);
  let account: PlatformAccount;
  let alice: Record<string, string>;
  let bob: Record<string, string>;

  const createRun = async (units: object[], line = account) => {
    const result = await http<{ id: string }>('POST', '/v4/runs', { headers: line.auth, body: { line_id: line.lineId, units } });
    expect(result.status).toBe(201);
    return result.body.id;
  };
  /** Time travel instead of waiting 15 minutes: the lease of the assignment ends now. */
  const endLease = async (assignmentId: string) => {
    await prisma.$executeRaw`update platform_unit set lease_expires_at = now() - interval '1 second'
      where lease_assignment_id = ${assignmentId}`;
    await prisma.$executeRaw`update platform_unit_assignment set expires_at = now() - interval '1 second' where id = ${assignmentId}`;
  };

  beforeAll(async () => {
    [account, alice, bob] = await Promise.all([createPlatformAccount('Work'), createWorker(), createWorker()]);
  });

  afterAll(() => prisma.$disconnect());

  it('next leases a unit (200 with its input), then 204 when nothing is left', async () => {
    const runId = await createRun([{ identifier: 'n1', text: { nested: [1, 2] } }]);
    const result = await http('POST', '/workforce/v1/assignments/next', {
      headers: alice,
      body: { kind: 'unit', line_id: account.lineId },
    });
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
      // Bodies of the wrong shape on purpose: raw http(), which the typed client would not send.
      const result = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/complete`, { headers: alice, body });
      expect([body, result.status]).toEqual([body, 422]);
      expect(result.body).toMatchObject({ message: expect.stringContaining(field), errors: [expect.objectContaining({ field })] });
    }
    expect((await flagUnit(alice, assignment.assignment_id, '')).status).toBe(422);
    for (const body of [{}, { reason: 5 }]) {
      const result = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/flag`, { headers: alice, body });
      expect(result.status).toBe(422);
    }
    const flagged = await http('POST', `/workforce/v1/assignments/${assignment.assignment_id}/flag`, {
      headers: alice,
      body: { reason: 'blurry image' },
    });
    expect([flagged.status, flagged.body]).toEqual([200, { assignment_id: assignment.assignment_id, status: 'Flagged' }]);
  });

  it("completing twice is 409; someone else's assignment and an unknown one are 404", async () => {
    const runId = await createRun([{ identifier: 't1' }]);
    const assignment = (await nextUnit(alice, account.lineId))!;
    const stolen = await completeUnit(bob, assignment.assignment_id, { output: { by: 'bob' } });
    expect([stolen.status, stolen.error]).toEqual([404, { message: `assignment ${assignment.assignment_id} not found` }]);
    const unknown = await completeUnit(alice, 'asgu_0000', { output: {} });
    expect([unknown.status, unknown.error]).toEqual([404, { message: 'assignment asgu_0000 not found' }]);
    const done = await completeUnit(alice, assignment.assignment_id, { output: { by: 'alice' } });
    expect([done.status, done.data]).toEqual([200, { assignment_id: assignment.assignment_id, status: 'Completed' }]);
    const twice = await completeUnit(alice, assignment.assignment_id, { output: { by: 'alice', again: true } });
    expect([twice.status, twice.error]).toEqual([409, { message: `assignment ${assignment.assignment_id} is already completed` }]);
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
    await endLease(first.assignment_id);
    const second = (await nextUnit(bob, account.lineId))!;
    expect(second).toMatchObject({ run_id: runId, input: { identifier: 'e1' } });
    expect(second.assignment_id).not.toBe(first.assignment_id);
    const late = await completeUnit(alice, first.assignment_id, { output: { by: 'alice' } });
    expect([late.status, late.error]).toEqual([
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
    await endLease(first.assignment_id);
    const late = await completeUnit(alice, first.assignment_id, { output: {} });
    expect(late.status).toBe(409);
    const again = (await nextUnit(alice, account.lineId))!;
    expect(again.input).toEqual({ identifier: 'e2' });
    expect((await completeUnit(alice, again.assignment_id, { output: {} })).status).toBe(200);
  });

  describe('complete and flag with `next`: the next assignment in the same answer', () => {
    const act = (worker: Record<string, string>, id: string, action: 'complete' | 'flag', body: object) =>
      http<{ assignment_id: string; status: string; next?: UnitAssignment | null }>('POST', `/workforce/v1/assignments/${id}/${action}`, {
        headers: worker,
        body,
      });

    it('answers the next unit of the line with the complete, then null when none is left', async () => {
      const line = await createPlatformAccount('Next');
      const runId = await createRun([{ identifier: 'x1' }, { identifier: 'x2' }, { identifier: 'x3' }], line);
      const first = (await nextUnit(alice, line.lineId))!;
      const second = await act(alice, first.assignment_id, 'complete', { output: { n: 1 }, next: { kind: 'unit', line_id: line.lineId } });
      expect(second.status).toBe(200);
      expect(second.body).toEqual({
        assignment_id: first.assignment_id,
        status: 'Completed',
        next: {
          assignment_id: expect.stringMatching(/^asgu_[0-9a-f]{32}$/),
          kind: 'unit',
          run_id: runId,
          line_id: line.lineId,
          input: { identifier: 'x2' },
          lease_expires_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/),
        },
      });
      const third = await act(alice, second.body.next!.assignment_id, 'flag', {
        reason: 'blurry',
        next: { kind: 'unit', line_id: line.lineId },
      });
      expect([third.status, third.body.status, third.body.next?.input]).toEqual([200, 'Flagged', { identifier: 'x3' }]);
      // The unit handed out is leased to this worker like any other: someone else cannot complete it.
      expect((await completeUnit(bob, third.body.next!.assignment_id, { output: {} })).status).toBe(404);
      const last = await act(alice, third.body.next!.assignment_id, 'complete', {
        output: { n: 3 },
        next: { kind: 'unit', line_id: line.lineId },
      });
      expect([last.status, last.body]).toEqual([200, { assignment_id: third.body.next!.assignment_id, status: 'Completed', next: null }]);
      const run = await http<{ status: string; units: { output: object; meta: { status: string } }[] }>('GET', `/v4/runs/${runId}`, {
        headers: line.auth,
      });
      expect(run.body.status).toBe('Processed');
      expect(run.body.units.map((unit) => [unit.meta.status, unit.output])).toEqual([
        ['Completed', { n: 1 }],
        ['Flagged', {}],
        ['Completed', { n: 3 }],
      ]);
    });

    it('old clients (no `next`) get exactly the answer they always got', async () => {
      const line = await createPlatformAccount('Old client');
      await createRun([{ identifier: 'o1' }, { identifier: 'o2' }], line);
      const first = (await nextUnit(alice, line.lineId))!;
      const done = await act(alice, first.assignment_id, 'complete', { output: { ok: true } });
      expect([done.status, done.body]).toEqual([200, { assignment_id: first.assignment_id, status: 'Completed' }]);
      const second = (await nextUnit(alice, line.lineId))!;
      const flagged = await act(alice, second.assignment_id, 'flag', { reason: 'no' });
      expect([flagged.status, flagged.body]).toEqual([200, { assignment_id: second.assignment_id, status: 'Flagged' }]);
    });

    it('a bad `next` is 422 naming the field, and neither stores the complete nor leases anything', async () => {
      const line = await createPlatformAccount('Bad next');
      const runId = await createRun([{ identifier: 'b1' }, { identifier: 'b2' }], line);
      const first = (await nextUnit(alice, line.lineId))!;
      for (const [next, field, message] of [
        [null, 'next', 'next must be an object'],
        ['unit', 'next', 'next must be an object'],
        [{}, 'next.kind', 'next.kind is required'],
        [{ kind: 'units' }, 'next.kind', 'next.kind must be one of: unit, task'],
        [{ kind: 'unit', line_id: 7 }, 'next.line_id', 'next.line_id must be a string'],
        [{ kind: 'unit', line_id: 'x'.repeat(201) }, 'next.line_id', 'next.line_id must be shorter than or equal to 200 characters'],
        [{ kind: 'unit', extra: 1 }, 'next.extra', 'property next.extra should not exist'],
      ] as const) {
        const result = await act(alice, first.assignment_id, 'complete', { output: { bad: true }, next });
        expect([next, result.status]).toEqual([next, 422]);
        expect(result.body).toMatchObject({ message: `Invalid request: ${message}`, errors: [{ field, message }] });
      }
      const flag = await act(alice, first.assignment_id, 'flag', { reason: 'r', next: { kind: 'job' } });
      expect([flag.status, (flag.body as unknown as { errors: object[] }).errors]).toEqual([
        422,
        [{ field: 'next.kind', message: 'next.kind must be one of: unit, task' }],
      ]);
      // Nothing stored, nothing leased: the unit is still the worker's, the other one still waiting.
      const units = await prisma.productionUnit.findMany({
        where: { runId },
        orderBy: { seq: 'asc' },
        select: { status: true, leaseAssignmentId: true },
      });
      expect(units).toEqual([
        { status: 'Processing', leaseAssignmentId: first.assignment_id },
        { status: 'Processing', leaseAssignmentId: null },
      ]);
      const ok = await act(alice, first.assignment_id, 'complete', {
        output: { good: true },
        next: { kind: 'unit', line_id: line.lineId },
      });
      expect([ok.status, ok.body.next?.input]).toEqual([200, { identifier: 'b2' }]);
      expect((await completeUnit(alice, ok.body.next!.assignment_id, { output: {} })).status).toBe(200);
    });

    it('a refused complete with `next` answers its error and leases nothing', async () => {
      const line = await createPlatformAccount('Refused next');
      await createRun([{ identifier: 'r1' }, { identifier: 'r2' }], line);
      const first = (await nextUnit(alice, line.lineId))!;
      const stolen = await act(bob, first.assignment_id, 'complete', { output: {}, next: { kind: 'unit', line_id: line.lineId } });
      expect([stolen.status, stolen.body]).toEqual([404, { message: `assignment ${first.assignment_id} not found` }]);
      const invalid = await act(alice, first.assignment_id, 'complete', { output: [1], next: { kind: 'unit', line_id: line.lineId } });
      expect(invalid.status).toBe(422);
      const second = (await nextUnit(bob, line.lineId))!;
      expect(second.input).toEqual({ identifier: 'r2' });
      for (const [worker, id] of [
        [alice, first.assignment_id],
        [bob, second.assignment_id],
      ] as const) {
        expect((await completeUnit(worker, id, { output: {} })).status).toBe(200);
      }
    });

    it('`next` may name the other kind: a unit completed, the answer carries the next task or null', async () => {
      const line = await createPlatformAccount('Cross kind');
      await createRun([{ identifier: 'k1' }], line);
      const first = (await nextUnit(alice, line.lineId))!;
      const done = await act(alice, first.assignment_id, 'complete', { output: {}, next: { kind: 'task' } });
      expect([done.status, done.body.assignment_id, done.body.status]).toEqual([200, first.assignment_id, 'Completed']);
      expect(Object.keys(done.body)).toContain('next');
      if (done.body.next !== null) expect(done.body.next).toMatchObject({ assignment_id: expect.stringMatching(/^asgt_/) });
    });
  });
});
