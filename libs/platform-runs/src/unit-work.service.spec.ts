import type { PublicSurface } from '@workline/db';
import { Batcher, type Sql } from '@workline/db';
import { ErrorCode, type UnitAssignmentView } from '@workline/contracts';
import { REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { PlatformRunsSettings } from './platform-runs.settings';
import { UnitStatus } from './run-views';
import type { RunsService } from './runs.service';
import type { ReservedUnit } from './unit-reservations';
import type { AssignmentState, FinishRow, LeaseRow, OutcomeRow, TriedAssignment, UnitWorkRepository } from './unit-work.repository';
import { UnitWorkService } from './unit-work.service';

const NOW = Date.parse('2026-05-06T07:00:00.000Z');

/** Reserved units to hand out, the leases and outcomes written, and each run's units left, in memory. */
class InMemoryUnitWorkRepository implements PublicSurface<UnitWorkRepository> {
  readonly reserved: ReservedUnit[] = [];
  readonly assignments = new Map<string, AssignmentState>();
  /** Runs whose units can no longer be leased (aborted, or taken over by another instance). */
  readonly closedRuns = new Set<string>();
  readonly pending = new Map<string, number>();
  readonly written: OutcomeRow[] = [];
  forgotten: string[] = [];
  released = false;

  batcher<I, R>(_name: string, flush: (items: I[]) => Promise<R[]>): Batcher<I, R> {
    return new Batcher({ flush });
  }

  async take(lineKey: string): Promise<ReservedUnit | null> {
    const index = this.reserved.findIndex((unit) => !lineKey || unit.line_id === lineKey);
    return index < 0 ? null : this.reserved.splice(index, 1)[0];
  }

  forgetRun(runId: string): void {
    this.forgotten.push(runId);
    this.reserved.splice(0, this.reserved.length, ...this.reserved.filter((unit) => unit.run_id !== runId));
  }

  async releaseAll(): Promise<void> {
    this.released = true;
  }

  async lease(rows: LeaseRow[], expiresAt: Date): Promise<string[]> {
    const leased = rows.filter((row) => !this.closedRuns.has(row.run_id));
    for (const row of leased) {
      this.assignments.set(row.id, {
        id: row.id,
        run_id: row.run_id,
        seq: row.seq,
        worker_id: row.worker_id,
        outcome: null,
        expires_at: expiresAt,
        unit_status: UnitStatus.Processing,
        lease_assignment_id: row.id,
      });
    }
    return leased.map((row) => row.id);
  }

  /** As FINISH_ASSIGNMENTS: writes the accepted outcomes of runs they do not finish. */
  async finish(rows: FinishRow[], now: Date): Promise<TriedAssignment[]> {
    const states = rows.flatMap((row) => (this.assignments.has(row.id) ? [{ ...this.assignments.get(row.id)! }] : []));
    const accepted = rows.filter((row) => {
      const state = this.assignments.get(row.id);
      return (
        state?.worker_id === row.worker_id &&
        state.outcome !== 'completed' &&
        state.outcome !== 'flagged' &&
        state.unit_status !== UnitStatus.Aborted &&
        state.lease_assignment_id === row.id &&
        state.expires_at.getTime() >= now.getTime()
      );
    });
    const found = accepted.map((row) => ({ row, state: this.assignments.get(row.id)! }));
    const counts = new Map<string, number>();
    for (const { state } of found) counts.set(state.run_id, (counts.get(state.run_id) ?? 0) + 1);
    const written = found.filter(({ state }) => (this.pending.get(state.run_id) ?? 1) - counts.get(state.run_id)! > 0);
    for (const { state } of written) this.pending.set(state.run_id, this.pending.get(state.run_id)! - 1);
    this.record(written.map(({ row: { worker_id: _, ...row }, state }) => ({ ...row, run_id: state.run_id, seq: state.seq })));
    return states.map((state) => ({ ...state, written: written.some(({ row }) => row.id === state.id) }));
  }

  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return work({} as Sql);
  }

  async lockAssignments(_sql: Sql, assignmentIds: string[]): Promise<AssignmentState[]> {
    return assignmentIds.flatMap((id) => (this.assignments.has(id) ? [{ ...this.assignments.get(id)! }] : []));
  }

  async applyOutcomes(_sql: Sql, rows: OutcomeRow[]): Promise<string[]> {
    this.record(rows);
    const processed: string[] = [];
    for (const row of rows) {
      const left = (this.pending.get(row.run_id) ?? 1) - 1;
      this.pending.set(row.run_id, left);
      if (left === 0) processed.push(row.run_id);
    }
    return processed;
  }

  private record(rows: OutcomeRow[]): void {
    this.written.push(...rows);
    for (const row of rows) {
      Object.assign(this.assignments.get(row.id)!, { outcome: row.outcome, unit_status: row.status, lease_assignment_id: null });
    }
  }
}

const unit = (runId: string, seq: number, lineId = 'line-1'): ReservedUnit => ({
  run_id: runId,
  seq,
  line_id: lineId,
  input: { seq },
  token: 'token-1',
  until: NOW + 30_000,
});

function setup() {
  const repository = new InMemoryUnitWorkRepository();
  const callbacks: { id: string; headers?: Record<string, string> }[][] = [];
  let pokes = 0;
  const runs = {
    enqueueCallbacks: async (_sql: Sql, processed: { id: string; headers?: Record<string, string> }[]) => void callbacks.push(processed),
    pokeRelay: () => void pokes++,
  };
  const settings = { unitLeaseSeconds: 60 } as PlatformRunsSettings;
  const work = new UnitWorkService(repository, runs as unknown as RunsService, settings, {
    now: () => NOW,
  });
  return { repository, work, callbacks, pokes: () => pokes };
}

describe('UnitWorkService', () => {
  it('leases the next reserved unit to the worker until the lease ends, and answers null when none is left', async () => {
    const { repository, work } = setup();
    repository.reserved.push(unit('run-1', 0, 'line-1'), unit('run-2', 0, 'line-2'));
    const view = await work.next({ worker_id: 'w-1', line_id: 'line-2' });
    expect(view).toEqual({
      assignment_id: expect.stringMatching(/^asgu_[0-9a-f]{32}$/),
      kind: 'unit',
      run_id: 'run-2',
      line_id: 'line-2',
      input: { seq: 0 },
      lease_expires_at: '2026-05-06T07:01:00Z',
    });
    expect(repository.assignments.get(view!.assignment_id)).toMatchObject({ worker_id: 'w-1', seq: 0 });
    expect(await work.next({ worker_id: 'w-1', line_id: 'line-2' })).toBeNull();
  });

  it('skips the units of a run it could not lease from (aborted meanwhile), forgetting the rest of that run', async () => {
    const { repository, work } = setup();
    repository.reserved.push(unit('aborted', 0), unit('aborted', 1), unit('run-2', 0));
    repository.closedRuns.add('aborted');
    await expect(work.next({ worker_id: 'w-1' })).resolves.toMatchObject({ run_id: 'run-2', input: { seq: 0 } });
    expect(repository.forgotten).toEqual(['aborted']);
  });

  it("completes the worker's unit; the run's last unit enqueues its callback with the request id and pokes the relay", async () => {
    const { repository, work, callbacks, pokes } = setup();
    repository.reserved.push(unit('run-1', 0));
    const { assignment_id } = (await work.next({ worker_id: 'w-1' }))!;
    const reply = await runWithRequestId('req-1', () =>
      work.complete({ worker_id: 'w-1', assignment_id, body: { output: { label: 'cat' } } }),
    );
    expect(reply).toEqual({ assignment_id, status: UnitStatus.Completed });
    expect(repository.written).toEqual([
      {
        id: assignment_id,
        run_id: 'run-1',
        seq: 0,
        status: UnitStatus.Completed,
        outcome: 'completed',
        output: { label: 'cat' },
        reason: null,
      },
    ]);
    expect(callbacks).toEqual([[{ id: 'run-1', headers: { [REQUEST_ID_KAFKA_HEADER]: 'req-1' } }]]);
    expect(pokes()).toBe(1);
  });

  it('flags a unit with its reason; a run with units left is not finished, nor opened in a transaction', async () => {
    const { repository, work, callbacks, pokes } = setup();
    repository.reserved.push(unit('run-1', 3));
    repository.pending.set('run-1', 2);
    const { assignment_id } = (await work.next({ worker_id: 'w-1' }))!;
    await expect(work.flag({ worker_id: 'w-1', assignment_id, body: { reason: 'blurry' } })).resolves.toEqual({
      assignment_id,
      status: UnitStatus.Flagged,
    });
    expect(repository.written[0]).toMatchObject({ seq: 3, status: UnitStatus.Flagged, output: null, reason: 'blurry' });
    expect(repository.pending.get('run-1')).toBe(1);
    expect(callbacks).toEqual([]);
    expect(pokes()).toBe(0);
  });

  it('writes a batch in one statement, except the outcomes that finish their run: those commit with its callback', async () => {
    const { repository, work, callbacks, pokes } = setup();
    repository.reserved.push(unit('run-long', 0), unit('run-last', 0), unit('run-long', 1));
    repository.pending.set('run-long', 5);
    repository.pending.set('run-last', 1);
    const leased: UnitAssignmentView[] = [];
    for (let i = 0; i < 3; i++) leased.push((await work.next({ worker_id: 'w-1' }))!);
    // One batch: the three are submitted in the same turn of the event loop.
    const replies = await runWithRequestId('req-9', () =>
      Promise.all(leased.map(({ assignment_id }) => work.complete({ worker_id: 'w-1', assignment_id, body: { output: {} } }))),
    );
    expect(replies).toEqual(leased.map(({ assignment_id }) => ({ assignment_id, status: UnitStatus.Completed })));
    expect(repository.written.map((row) => [row.run_id, row.seq])).toEqual([
      ['run-long', 0],
      ['run-long', 1],
      ['run-last', 0],
    ]);
    expect(repository.pending).toEqual(
      new Map([
        ['run-long', 3],
        ['run-last', 0],
      ]),
    );
    expect(callbacks).toEqual([[{ id: 'run-last', headers: { [REQUEST_ID_KAFKA_HEADER]: 'req-9' } }]]);
    expect(pokes()).toBe(1);
  });

  describe('refuses an outcome', () => {
    const leased = async () => {
      const context = setup();
      context.repository.reserved.push(unit('run-1', 0));
      const { assignment_id } = (await context.work.next({ worker_id: 'w-1' }))!;
      return { ...context, assignment_id, state: context.repository.assignments.get(assignment_id)! };
    };

    it("for another worker's assignment and an unknown one, as not found", async () => {
      const { work, assignment_id } = await leased();
      await expect(work.complete({ worker_id: 'w-2', assignment_id, body: { output: {} } })).rejects.toMatchObject({
        code: ErrorCode.NotFound,
        message: `assignment ${assignment_id} not found`,
      });
      await expect(work.flag({ worker_id: 'w-1', assignment_id: 'asgu_nope', body: { reason: 'x' } })).rejects.toMatchObject({
        code: ErrorCode.NotFound,
      });
    });

    it('after one was given: the second is a conflict', async () => {
      const { work, assignment_id, repository } = await leased();
      await work.complete({ worker_id: 'w-1', assignment_id, body: { output: {} } });
      await expect(work.flag({ worker_id: 'w-1', assignment_id, body: { reason: 'x' } })).rejects.toMatchObject({
        code: ErrorCode.Conflict,
        message: `assignment ${assignment_id} is already completed`,
      });
      expect(repository.written).toHaveLength(1);
    });

    it('for a unit whose run was aborted', async () => {
      const { work, assignment_id, state } = await leased();
      state.unit_status = UnitStatus.Aborted;
      await expect(work.complete({ worker_id: 'w-1', assignment_id, body: { output: {} } })).rejects.toMatchObject({
        code: ErrorCode.Conflict,
        message: `assignment ${assignment_id} cannot be completed: its run was aborted and the unit is Aborted`,
      });
    });

    it('once the lease ended, or the unit was leased again', async () => {
      const expired = `cannot be flagged: its lease expired and the unit went back to the queue`;
      const first = await leased();
      first.state.expires_at = new Date(NOW - 1);
      await expect(first.work.flag({ worker_id: 'w-1', assignment_id: first.assignment_id, body: { reason: 'x' } })).rejects.toMatchObject({
        code: ErrorCode.Conflict,
        message: `assignment ${first.assignment_id} ${expired}`,
      });
      const second = await leased();
      second.state.lease_assignment_id = 'asgu_other';
      await expect(
        second.work.flag({ worker_id: 'w-1', assignment_id: second.assignment_id, body: { reason: 'x' } }),
      ).rejects.toMatchObject({
        code: ErrorCode.Conflict,
        message: `assignment ${second.assignment_id} ${expired}`,
      });
      expect([...first.repository.written, ...second.repository.written]).toEqual([]);
    });

    it('whose body is invalid, before anything is written', async () => {
      const { work, assignment_id, repository } = await leased();
      await expect(work.complete({ worker_id: 'w-1', assignment_id, body: { output: 'cat' } })).rejects.toMatchObject({
        code: ErrorCode.Validation,
      });
      await expect(work.flag({ worker_id: 'w-1', assignment_id, body: {} })).rejects.toMatchObject({ code: ErrorCode.Validation });
      expect(repository.written).toEqual([]);
    });
  });

  it('with next asked for, leases the next unit once the outcome is stored (null when none is left)', async () => {
    const { repository, work } = setup();
    repository.reserved.push(unit('run-1', 0), unit('run-1', 1));
    const first = (await work.next({ worker_id: 'w-1' }))!;
    const reply = await work.complete({ worker_id: 'w-1', assignment_id: first.assignment_id, body: { output: {} }, next: {} });
    expect(reply).toMatchObject({ status: UnitStatus.Completed, next: { run_id: 'run-1', input: { seq: 1 } } });
    const last = await work.complete({ worker_id: 'w-1', assignment_id: reply.next!.assignment_id, body: { output: {} }, next: {} });
    expect(last).toEqual({ assignment_id: reply.next!.assignment_id, status: UnitStatus.Completed, next: null });
  });

  it('puts back its reserved units on a graceful stop', async () => {
    const { repository, work } = setup();
    await work.onApplicationShutdown();
    expect(repository.released).toBe(true);
  });
});
