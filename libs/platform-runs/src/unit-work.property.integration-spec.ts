import 'reflect-metadata';
import { BlobReplies, FsBlobStore } from '@workline/blob-store';
import { type AssignmentActionReply, DomainError, Topic, type UnitAssignmentView } from '@workline/contracts';
import { DbPool, PrismaService } from '@workline/db';
import type { OutboxRelay } from '@workline/messaging';
import { LoopbackReceiver, testStack } from '@workline/testing';
import fc from 'fast-check';
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PlatformRunsClock, PlatformRunsSettings } from './platform-runs.settings';
import { RunsRepository } from './runs.repository';
import { RunsService } from './runs.service';
import { UnitWorkRepository } from './unit-work.repository';
import { UnitWorkService } from './unit-work.service';

/**
 * A model-checked queue (issue 14): fast-check drives random interleavings of next, complete, flag, abort,
 * lease expiry (a clock turned forward, no sleeping) and instance crashes (an instance's memory thrown
 * away with its reservations) against the domain service on the real PostgreSQL, and compares every answer
 * with a small reference model. Bursts send several of them at once, so they share batches, an abort
 * among them. It checks that no unit is ever leased to two workers at once, that every unit ends exactly
 * once in one final state (the model's), and that each run produces exactly one callback.
 */
const LEASE_SECONDS = 60;
const RESERVATION_SECONDS = 5;
const WORKERS = ['w0', 'w1', 'w2'];

type Final = 'Completed' | 'Flagged' | 'Aborted';

interface ModelUnit {
  runId: string;
  seq: number;
  final?: Final;
  /** The current lease: its assignment and when it ends (ms). */
  lease?: { id: string; until: number };
}

interface ModelAssignment {
  id: string;
  runId: string;
  seq: number;
  worker: string;
  until: number;
  outcome?: 'completed' | 'flagged';
}

class Model {
  readonly units = new Map<string, ModelUnit>();
  readonly assignments: ModelAssignment[] = [];
  readonly runs: string[] = [];

  static key = (runId: string, seq: number) => `${runId}/${seq}`;

  unit(runId: string, seq: number): ModelUnit {
    return this.units.get(Model.key(runId, seq))!;
  }

  free(now: number): ModelUnit[] {
    return [...this.units.values()].filter((unit) => !unit.final && (!unit.lease || unit.lease.until < now));
  }

  /** What complete/flag must answer when nothing races it (the checks and messages of docs/work-api.md). */
  expected(assignment: ModelAssignment | undefined, id: string, worker: string, outcome: 'completed' | 'flagged', now: number): string {
    if (!assignment || assignment.worker !== worker) return `404 assignment ${id} not found`;
    if (assignment.outcome) return `409 assignment ${id} is already ${assignment.outcome}`;
    const unit = this.unit(assignment.runId, assignment.seq);
    if (unit.final === 'Aborted') return `409 assignment ${id} cannot be ${outcome}: its run was aborted and the unit is Aborted`;
    if (unit.lease?.id !== id || assignment.until < now)
      return `409 assignment ${id} cannot be ${outcome}: its lease expired and the unit went back to the queue`;
    return `200 ${outcome === 'completed' ? 'Completed' : 'Flagged'}`;
  }

  finish(assignment: ModelAssignment, outcome: 'completed' | 'flagged'): void {
    assignment.outcome = outcome;
    const unit = this.unit(assignment.runId, assignment.seq);
    unit.final = outcome === 'completed' ? 'Completed' : 'Flagged';
    unit.lease = undefined;
  }

  abort(runId: string): void {
    for (const unit of this.units.values()) {
      if (unit.runId === runId && !unit.final) {
        unit.final = 'Aborted';
        unit.lease = undefined;
      }
    }
  }
}

const answerOf = async (work: Promise<AssignmentActionReply>): Promise<string> => {
  try {
    return `200 ${(await work).status}`;
  } catch (error) {
    if (!(error instanceof DomainError)) throw error;
    return `${error.code === 'NOT_FOUND' ? 404 : error.code === 'CONFLICT' ? 409 : error.code} ${error.message}`;
  }
};

describe('work API queue: random interleavings against a reference model (real PostgreSQL)', () => {
  const db = new DbPool(testStack().databaseUrl, { size: 6 });
  const prisma = new PrismaService(db);
  const clock: PlatformRunsClock & { t: number } = { t: Date.now(), now: () => clock.t };
  const relay = { poke: () => undefined } as unknown as OutboxRelay;
  const settings = (instanceId: string): PlatformRunsSettings => ({
    secretsKey: 'workline-development-secrets-key-do-not-use-in-production',
    callbackPolicy: { allowPrivate: true },
    unitLeaseSeconds: LEASE_SECONDS,
    unitReservationSeconds: RESERVATION_SECONDS,
    unitClaimAhead: 2,
    instanceId,
  });
  // Run reads are not part of the model: their replies may go to a throwaway folder.
  const replies = new BlobReplies(new FsBlobStore(mkdtempSync(join(tmpdir(), 'workline-property-'))), {
    service: 'platform-runs',
    inlineBytes: 256 * 1024,
    keepSeconds: 600,
    sweepSeconds: 300,
    warn: () => undefined,
  });
  const runs = new RunsService(new RunsRepository(prisma, db, relay), replies, settings('runs'));
  const instance = () => {
    const own = settings(`prop-${randomUUID().slice(0, 6)}`);
    return new UnitWorkService(new UnitWorkRepository(db, own, clock), runs, own, clock);
  };

  // The stack's relay publishes the callbacks this test writes and its dispatcher delivers them: here.
  const receiver = new LoopbackReceiver();
  beforeAll(() => receiver.start());

  afterAll(async () => {
    await prisma.$disconnect();
    await db.end();
    await receiver.stop();
  });

  /** A fresh line with runs of the given sizes, each with a callback URL (so each must yield one delivery). */
  async function seed(sizes: number[]): Promise<{ lineId: string; model: Model }> {
    const lineId = `prop-line-${randomUUID()}`;
    const accountId = `prop-account-${randomUUID()}`;
    const model = new Model();
    await prisma.productionLine.create({ data: { id: lineId, accountId, name: 'property' } });
    for (const [r, size] of sizes.entries()) {
      const runId = randomUUID();
      const createdAt = new Date(clock.t + r);
      await prisma.productionRun.create({
        data: {
          id: runId,
          accountId,
          lineId,
          api: 'v4',
          status: 'Processing',
          callbackUrl: receiver.url('/property'),
          unitCount: size,
          pendingUnits: size,
          createdAt,
        },
      });
      await prisma.productionUnit.createMany({
        data: Array.from({ length: size }, (_, seq) => ({ runId, seq, lineId, input: { seq }, status: 'Processing', createdAt })),
      });
      model.runs.push(runId);
      for (let seq = 0; seq < size; seq++) model.units.set(Model.key(runId, seq), { runId, seq });
    }
    return { lineId, model };
  }

  const abort = (runId: string) => prisma.$transaction((tx) => runs.applyAbort(tx, runId));

  type Step =
    | { kind: 'next'; instance: number; worker: number }
    | { kind: 'act'; instance: number; pick: number; worker: number | 'owner'; outcome: 'completed' | 'flagged'; next: boolean }
    | { kind: 'abort'; run: number }
    | { kind: 'time'; seconds: number }
    | { kind: 'crash'; instance: number }
    | { kind: 'burst'; instance: number; picks: number[]; nexts: number; abortRun: number | null };

  const step: fc.Arbitrary<Step> = fc.oneof(
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('next' as const), instance: fc.nat(1), worker: fc.nat(WORKERS.length - 1) }) },
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('act' as const),
        instance: fc.nat(1),
        pick: fc.nat(),
        worker: fc.oneof({ weight: 5, arbitrary: fc.constant('owner' as const) }, { weight: 1, arbitrary: fc.nat(WORKERS.length - 1) }),
        outcome: fc.constantFrom('completed' as const, 'flagged' as const),
        next: fc.boolean(),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('abort' as const), run: fc.nat(2) }) },
    {
      weight: 2,
      arbitrary: fc.record({ kind: fc.constant('time' as const), seconds: fc.constantFrom(1, RESERVATION_SECONDS, LEASE_SECONDS + 1) }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('crash' as const), instance: fc.nat(1) }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('burst' as const),
        instance: fc.nat(1),
        picks: fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
        nexts: fc.nat(3),
        abortRun: fc.option(fc.nat(2)),
      }),
    },
  );

  it('every answer matches the model; no unit is leased twice; every unit ends once; one callback per run', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 1, max: 5 }), { minLength: 1, maxLength: 3 }),
        fc.array(step, { minLength: 5, maxLength: 30 }),
        async (sizes, steps) => {
          const { lineId, model } = await seed(sizes);
          const instances = [instance(), instance()];

          /** Checks a leased assignment against the model (the unit was free) and records it. */
          const leased = (view: UnitAssignmentView | null | undefined, worker: string, freeBefore: Set<ModelUnit>) => {
            if (!view) return;
            const seq = (view.input as { seq: number }).seq;
            const unit = model.unit(view.run_id, seq);
            expect(unit && freeBefore.has(unit) && !unit.final && !(unit.lease && unit.lease.until >= clock.t)).toBe(true);
            const until = clock.t + LEASE_SECONDS * 1000;
            unit.lease = { id: view.assignment_id, until };
            model.assignments.push({ id: view.assignment_id, runId: view.run_id, seq, worker, until });
          };

          for (const s of steps) {
            const work = instances[s.kind === 'abort' || s.kind === 'time' ? 0 : s.instance];
            if (s.kind === 'next') {
              const free = new Set(model.free(clock.t));
              const view = await work.next({ worker_id: WORKERS[s.worker], line_id: lineId });
              // A unit is free somewhere (another instance's memory included): next finds it.
              expect(view === null).toBe(free.size === 0);
              leased(view, WORKERS[s.worker], free);
            } else if (s.kind === 'act') {
              if (!model.assignments.length) continue;
              const assignment = model.assignments[s.pick % model.assignments.length];
              const worker = s.worker === 'owner' ? assignment.worker : WORKERS[s.worker];
              const expected = model.expected(assignment, assignment.id, worker, s.outcome, clock.t);
              const request = {
                worker_id: worker,
                assignment_id: assignment.id,
                body: s.outcome === 'completed' ? { output: { by: worker } } : { reason: 'r' },
                ...(s.next ? { next: { line_id: lineId } } : {}),
              };
              let reply: AssignmentActionReply | undefined;
              const answer = await answerOf(
                (async () => (reply = await (s.outcome === 'completed' ? work.complete(request) : work.flag(request))))(),
              );
              expect(answer).toBe(expected);
              if (answer.startsWith('200')) {
                model.finish(assignment, s.outcome);
                if (s.next) {
                  const free = new Set(model.free(clock.t));
                  expect(reply!.next === null).toBe(free.size === 0);
                  leased(reply!.next, worker, free);
                }
              }
            } else if (s.kind === 'abort') {
              const runId = model.runs[s.run % model.runs.length];
              await abort(runId);
              model.abort(runId);
            } else if (s.kind === 'time') {
              clock.t += s.seconds * 1000;
            } else if (s.kind === 'crash') {
              instances[s.instance] = instance();
            } else {
              // A burst: completes of live assignments (the same one twice at times), nexts and perhaps an
              // abort, all at once: they share batches, and the abort races them.
              const live = model.assignments.filter(
                (a) => !a.outcome && model.unit(a.runId, a.seq).lease?.id === a.id && a.until >= clock.t,
              );
              const picked = live.length ? s.picks.map((p) => live[p % live.length]) : [];
              const free = new Set(model.free(clock.t));
              const abortRun = s.abortRun === null ? undefined : model.runs[s.abortRun % model.runs.length];
              const [answers, views] = await Promise.all([
                Promise.all(
                  picked.map((a) =>
                    answerOf(work.complete({ worker_id: a.worker, assignment_id: a.id, body: { output: { burst: true } } })),
                  ),
                ),
                Promise.all(
                  Array.from({ length: s.nexts }, (_, i) => work.next({ worker_id: WORKERS[i % WORKERS.length], line_id: lineId })),
                ),
                abortRun ? abort(abortRun) : undefined,
              ]);
              for (const [i, view] of views.entries()) leased(view, WORKERS[i % WORKERS.length], free);
              const winners = new Set<ModelAssignment>();
              for (const [i, a] of picked.entries()) {
                if (answers[i] === '200 Completed' && !winners.has(a)) {
                  winners.add(a);
                  model.finish(a, 'completed');
                }
              }
              if (abortRun) model.abort(abortRun);
              // A next answered none only when nothing was left free (the abort may have taken what it skipped).
              if (views.includes(null)) expect(model.free(clock.t)).toEqual([]);
              for (const [i, a] of picked.entries()) {
                const answer = answers[i];
                if (answer === '200 Completed') continue;
                // Lost to its twin in the burst, or to the abort: exactly the answers one alone would get.
                const twin = winners.has(a) && `409 assignment ${a.id} is already completed`;
                const aborted =
                  a.runId === abortRun && `409 assignment ${a.id} cannot be completed: its run was aborted and the unit is Aborted`;
                expect([twin, aborted]).toContain(answer);
              }
              expect(picked.filter((a, i) => answers[i] === '200 Completed').length).toBe(winners.size);
            }
            // Never two live leases on one unit, whatever the model thinks.
            const doubled = await prisma.$queryRaw<{ n: number }[]>`
            select count(*)::int as n from platform_unit_assignment a join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
            where u.line_id = ${lineId} and u.status = 'Processing' and a.outcome is null and a.expires_at >= ${new Date(clock.t)}
            group by a.run_id, a.seq having count(*) > 1`;
            expect(doubled).toEqual([]);
          }

          // Drain: leases end, a fresh instance completes whatever is left.
          clock.t += (LEASE_SECONDS + RESERVATION_SECONDS + 1) * 1000;
          const last = instance();
          for (let view = await last.next({ worker_id: 'drain', line_id: lineId }); view;) {
            const reply = await last.complete({
              worker_id: 'drain',
              assignment_id: view.assignment_id,
              body: { output: { drained: true } },
              next: { line_id: lineId },
            });
            model.unit(view.run_id, (view.input as { seq: number }).seq).final = 'Completed';
            view = reply.next ?? null;
          }

          const units = await prisma.productionUnit.findMany({ where: { lineId }, select: { runId: true, seq: true, status: true } });
          expect(units.map((u) => `${u.runId}/${u.seq} ${u.status}`).sort()).toEqual(
            [...model.units.values()].map((u) => `${u.runId}/${u.seq} ${u.final}`).sort(),
          );
          // Exactly once: a Completed or Flagged unit has exactly one assignment with an outcome, an Aborted one none.
          const outcomes = await prisma.$queryRaw<{ key: string; n: number }[]>`
          select a.run_id || '/' || a.seq as key, count(*)::int as n from platform_unit_assignment a
          join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
          where u.line_id = ${lineId} and a.outcome is not null group by a.run_id, a.seq`;
          const outcomeCount = new Map(outcomes.map((row) => [row.key, row.n]));
          for (const unit of model.units.values())
            expect([unit.final, outcomeCount.get(Model.key(unit.runId, unit.seq)) ?? 0]).toEqual([
              unit.final,
              unit.final === 'Aborted' ? 0 : 1,
            ]);
          const runRows = await prisma.productionRun.findMany({
            where: { lineId },
            select: { id: true, status: true, pendingUnits: true },
          });
          expect(runRows.map((run) => [run.status, run.pendingUnits])).toEqual(runRows.map(() => ['Processed', 0]));
          const callbacks = await prisma.$queryRaw<{ key: string; n: number }[]>`
          select key, count(*)::int as n from messaging_outbox
          where topic = ${Topic.DeliveryRequested} and key = any(${model.runs}) group by key`;
          expect(new Map(callbacks.map((row) => [row.key, row.n]))).toEqual(new Map(model.runs.map((id) => [id, 1])));
        },
      ),
      { numRuns: Number(process.env.PROPERTY_RUNS ?? 60), endOnFailure: true },
    );
  }, 180_000);
});
