import { Inject, Injectable } from '@nestjs/common';
import { type Batcher, DbPool, type Sql, statement } from '@workline/db';
import { PLATFORM_RUNS_CLOCK, PLATFORM_RUNS_SETTINGS, type PlatformRunsClock, type PlatformRunsSettings } from './platform-runs.settings';
import { RunStatus, UnitStatus } from './run-views';
import { type ReservedUnit, UnitReservations } from './unit-reservations';

/** Where an assignment and its unit stand, read under lock before an outcome is decided. */
export interface AssignmentState {
  id: string;
  run_id: string;
  seq: number;
  worker_id: string;
  outcome: string | null;
  expires_at: Date;
  unit_status: string;
  lease_assignment_id: string | null;
}

/** A lease to write: a reserved unit (its claim's token), to one worker, under a new assignment id. */
export interface LeaseRow {
  id: string;
  run_id: string;
  seq: number;
  token: string;
  worker_id: string;
}

/** An accepted complete or flag to write. */
export interface OutcomeRow {
  id: string;
  run_id: string;
  seq: number;
  status: string;
  outcome: string;
  output: Record<string, unknown> | null;
  reason: string | null;
}

/**
 * Leases of a batch, in one statement: each unit only while its claim's token is still on it and it is
 * still Processing (an abort, or another instance that took the reservation over, makes the lease fail).
 * Each unit is found by its primary key alone, one lateral lookup per lease, locked, and only then checked
 * (FOR UPDATE returns the newest version of a row another transaction changed meanwhile); `limit 1` keeps
 * the checks out of the lookup. With `status` in the lookup or the update's join, the plan followed the
 * statistics of `status`: taken before a large run arrived, they made every lease read all the Processing
 * units along the status index (25 ms a lease instead of 0.08 ms under `npm run bench`; the plan is checked
 * in unit-queue-plans.integration-spec.ts).
 */
export const LEASE_UNITS = statement(
  'platform_units_lease',
  `with x as (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, run_id text, seq int, token text, worker_id text)
   ), still_reserved as (
     select x.* from x cross join lateral (
       select u.status, u.reserved_by from platform_unit u where u.run_id = x.run_id and u.seq = x.seq limit 1 for update
     ) unit
     where unit.reserved_by = x.token and unit.status = '${UnitStatus.Processing}'
   ), leased as (
     update platform_unit u set lease_assignment_id = r.id, lease_expires_at = $2, reserved_by = null, reserved_until = null
     from still_reserved r
     where u.run_id = r.run_id and u.seq = r.seq
     returning r.id, r.run_id, r.seq, r.worker_id
   ), assignments as (
     insert into platform_unit_assignment (id, run_id, seq, worker_id, expires_at, created_at)
     select id, run_id, seq, worker_id, $2, $3 from leased
   )
   select id from leased`,
);

/** The columns of an AssignmentState, from an assignment `a` joined to its unit `u`. */
const ASSIGNMENT_STATE = 'a.id, a.run_id, a.seq, a.worker_id, a.outcome, a.expires_at, u.status as unit_status, u.lease_assignment_id';

/**
 * The two CTEs (`units`, `assignments`) that write accepted outcomes, read from `rows` (id, run_id, seq,
 * status, outcome, output, reason), at the time in parameter `at`: one definition for every statement that
 * writes them.
 */
const writeOutcomeRows = (rows: string, at: string) =>
  `units as (
     update platform_unit u set status = o.status, output = o.output, flag_reason = o.reason, processed_at = ${at},
       lease_assignment_id = null, lease_expires_at = null
     from ${rows} o where u.run_id = o.run_id and u.seq = o.seq
   ), assignments as (
     update platform_unit_assignment a set outcome = o.outcome, ended_at = ${at} from ${rows} o where a.id = o.id
   )`;

/** Locks the assignments of a batch and their units (in one order, so concurrent batches do not deadlock) and reads where they stand. */
export const LOCK_ASSIGNMENTS = statement(
  'platform_assignments_lock',
  `select ${ASSIGNMENT_STATE}
   from platform_unit_assignment a
   join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
   where a.id = any($1::text[])
   order by a.run_id, a.seq
   for update of a, u`,
);

/** A complete or flag to try in one statement (FINISH_ASSIGNMENTS). */
export interface FinishRow {
  id: string;
  worker_id: string;
  status: string;
  outcome: string;
  output: Record<string, unknown> | null;
  reason: string | null;
}

/** Where an assignment stood before its outcome was tried, and whether the statement wrote the outcome. */
export interface TriedAssignment extends AssignmentState {
  written: boolean;
}

/**
 * The outcomes of a batch in one statement, outside any transaction: lock the assignments and their units
 * (as LOCK_ASSIGNMENTS), accept those that `refusal` in unit-work.service.ts would accept, and write them
 * with each run's counter changed once; an autocommit statement is one round trip where the transaction
 * takes four. It writes nothing for a run that the batch would finish (or that is no longer Processing):
 * the run's move to Processed must commit with its callback, so those outcomes are decided again in a
 * transaction (APPLY_OUTCOMES). Answers every assignment found, with where it stood and whether it was
 * written. Each run's counter is read under its row lock (an UPDATE re-reads a row changed meanwhile), so
 * `pending_units - n > 0` holds against concurrent batches too.
 */
export const FINISH_ASSIGNMENTS = statement(
  'platform_assignments_finish',
  `with x as (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, worker_id text, status text, outcome text, output jsonb, reason text)
   ), locked as materialized (
     select ${ASSIGNMENT_STATE}
     from unnest($2::text[]) as k(id)
     join platform_unit_assignment a on a.id = k.id
     join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
     order by a.run_id, a.seq
     for update of a, u
   ), accepted as (
     select x.*, l.run_id, l.seq from x join locked l on l.id = x.id
     where l.worker_id = x.worker_id
       and l.outcome is distinct from 'completed' and l.outcome is distinct from 'flagged'
       and l.unit_status <> '${UnitStatus.Aborted}'
       and l.lease_assignment_id = x.id and l.expires_at >= $3
   ), counts as (
     select run_id, count(*)::int as n from accepted group by run_id
   ), runs as (
     update platform_run r set pending_units = r.pending_units - c.n
     from counts c
     where r.id = c.run_id and r.status = '${RunStatus.Processing}' and r.pending_units - c.n > 0
     returning r.id
   ), written as (
     select accepted.* from accepted join runs on runs.id = accepted.run_id
   ), ${writeOutcomeRows('written', '$3')}
   select l.*, exists (select 1 from written w where w.id = l.id) as written from locked l`,
);

/**
 * The outcomes of a batch from arrays: units, assignments, and each run's counter once (the last unit
 * makes the run Processed). Answers the runs that became Processed.
 */
const APPLY_OUTCOMES = statement(
  'platform_outcomes_apply',
  `with x as (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, run_id text, seq int, status text, outcome text, output jsonb, reason text)
   ), ${writeOutcomeRows('x', '$2')}, counts as (
     select run_id, count(*)::int as n from x group by run_id
   ), runs as (
     update platform_run r set pending_units = r.pending_units - c.n,
       status = case when r.pending_units - c.n <= 0 then '${RunStatus.Processed}' else r.status end,
       processed_at = case when r.pending_units - c.n <= 0 then $2 else r.processed_at end
     from counts c
     where r.id = c.run_id and r.status = '${RunStatus.Processing}'
     returning r.id, r.status
   )
   select id from runs where status = '${RunStatus.Processed}'`,
);

/**
 * The unit work tables: reservations of units (UnitReservations), leases and outcomes, each written in
 * batches (group commits on this pool); the methods taking Sql work in the caller's transaction.
 */
@Injectable()
export class UnitWorkRepository {
  private readonly reservations: UnitReservations;

  constructor(
    private readonly db: DbPool,
    @Inject(PLATFORM_RUNS_SETTINGS) settings: PlatformRunsSettings,
    @Inject(PLATFORM_RUNS_CLOCK) clock: PlatformRunsClock,
  ) {
    this.reservations = new UnitReservations(db, settings, clock);
  }

  /** A group-commit batcher on this pool: one flush, one transaction. */
  batcher<I, R>(name: string, flush: (items: I[]) => Promise<R[]>): Batcher<I, R> {
    return this.db.batcher(name, flush);
  }

  /** A reserved unit of the line ('' = any); null when no unit is free. */
  take(lineKey: string): Promise<ReservedUnit | null> {
    return this.reservations.take(lineKey);
  }

  forgetRun(runId: string): void {
    this.reservations.forgetRun(runId);
  }

  releaseAll(): Promise<void> {
    return this.reservations.releaseAll();
  }

  /** Writes the leases of a batch in one statement; answers the ids of those written. */
  async lease(rows: LeaseRow[], expiresAt: Date, now: Date): Promise<string[]> {
    return (await this.db.query<{ id: string }>(LEASE_UNITS, [JSON.stringify(rows), expiresAt, now])).map((row) => row.id);
  }

  /** A transaction planned along indexes: outcomes lock and write rows by key, whatever the statistics say. */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T> {
    return this.db.transaction(work, 'along-indexes');
  }

  /** Tries the outcomes of a batch in one statement (FINISH_ASSIGNMENTS); `rows` must name each assignment once. */
  finish(rows: FinishRow[], now: Date): Promise<TriedAssignment[]> {
    return this.db.query<TriedAssignment>(FINISH_ASSIGNMENTS, [JSON.stringify(rows), rows.map((row) => row.id), now]);
  }

  async lockAssignments(sql: Sql, assignmentIds: string[]): Promise<AssignmentState[]> {
    return sql.query<AssignmentState>(LOCK_ASSIGNMENTS, [assignmentIds]);
  }

  /** Writes accepted outcomes; answers the runs they made Processed. */
  async applyOutcomes(sql: Sql, rows: OutcomeRow[], now: Date): Promise<string[]> {
    return (await sql.query<{ id: string }>(APPLY_OUTCOMES, [JSON.stringify(rows), now])).map((row) => row.id);
  }
}
