import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import {
  type AssignmentActionReply,
  type AssignmentActionRequest,
  type AssignmentNextRequest,
  CompleteUnitAssignmentDto,
  DomainError,
  ErrorCode,
  FlagAssignmentDto,
  newAssignmentId,
  type UnitAssignmentView,
  validateContract,
} from '@workline/contracts';
import { type Batcher, DbPool, type Sql, statement } from '@workline/db';
import { withRequestIdHeader } from '@workline/observability';
import { PLATFORM_CLOCK, PLATFORM_SETTINGS, type PlatformClock, type PlatformSettings } from './platform.settings';
import { RunStatus, UnitStatus } from './run-views';
import { RunsService } from './runs.service';
import { type ReservedUnit, UnitReservations } from './unit-reservations';
import { isoSeconds } from './time-format';

export type UnitOutcome = 'completed' | 'flagged';

/** A lease to write: a reserved unit, to one worker, under a new assignment id. */
interface LeaseItem {
  id: string;
  unit: ReservedUnit;
  worker_id: string;
}

/** A complete or flag to write. */
interface OutcomeItem {
  assignment_id: string;
  worker_id: string;
  outcome: UnitOutcome;
  output: Record<string, unknown> | null;
  reason: string | null;
  /** The request id of the request it came in: a callback it causes carries it (the batch runs outside any request). */
  headers?: Record<string, string>;
}

type OutcomeResult = { reply: AssignmentActionReply } | { error: DomainError };

interface AssignmentState {
  id: string;
  run_id: string;
  seq: number;
  worker_id: string;
  outcome: string | null;
  expires_at: Date;
  unit_status: string;
  lease_assignment_id: string | null;
}

const STATUS_OF: Record<UnitOutcome, string> = { completed: UnitStatus.Completed, flagged: UnitStatus.Flagged };

/**
 * Leases of a batch, in one statement: each unit only while its claim's token is still on it and it is
 * still Processing (an abort, or another instance that took the reservation over, makes the lease fail).
 */
const LEASE = statement(
  'platform_units_lease',
  `with x as (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, run_id text, seq int, token text, worker_id text)
   ), leased as (
     update platform_unit u set lease_assignment_id = x.id, lease_expires_at = $2, reserved_by = null, reserved_until = null
     from x
     where u.run_id = x.run_id and u.seq = x.seq and u.reserved_by = x.token and u.status = '${UnitStatus.Processing}'
     returning x.id, x.run_id, x.seq, x.worker_id
   ), assignments as (
     insert into platform_unit_assignment (id, run_id, seq, worker_id, expires_at, created_at)
     select id, run_id, seq, worker_id, $2, $3 from leased
   )
   select id from leased`,
);

/** Locks the assignments of a batch and their units (in one order, so concurrent batches do not deadlock) and reads where they stand. */
const LOCK_ASSIGNMENTS = statement(
  'platform_assignments_lock',
  `select a.id, a.run_id, a.seq, a.worker_id, a.outcome, a.expires_at, u.status as unit_status, u.lease_assignment_id
   from platform_unit_assignment a
   join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
   where a.id = any($1::text[])
   order by a.run_id, a.seq
   for update of a, u`,
);

/**
 * The outcomes of a batch from arrays: units, assignments, and each run's counter once (the last unit
 * makes the run Processed). Answers the runs that became Processed.
 */
const APPLY_OUTCOMES = statement(
  'platform_outcomes_apply',
  `with x as (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, run_id text, seq int, status text, outcome text, output jsonb, reason text)
   ), units as (
     update platform_unit u set status = x.status, output = x.output, flag_reason = x.reason, processed_at = $2,
       lease_assignment_id = null, lease_expires_at = null
     from x where u.run_id = x.run_id and u.seq = x.seq
   ), assignments as (
     update platform_unit_assignment a set outcome = x.outcome, ended_at = $2 from x where a.id = x.id
   ), counts as (
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
 * The work API for units: a worker leases the oldest unprocessed unit (a lease, not a lock held open),
 * then completes or flags it before the lease ends. Leases live in PostgreSQL, so any number of
 * platform-runs instances hand out units without ever giving one unit to two workers at once.
 *
 * Under load everything goes in batches (docs/work-api.md, "Claims and completions in batches"): units
 * are claimed in batches under a short reservation and handed out from memory (UnitReservations), the
 * leases of one turn of the event loop are written by one statement, and the completes and flags that
 * queued are written by one transaction that changes each run's counter once. Nothing waits to fill a batch.
 */
@Injectable()
export class UnitWorkService implements OnApplicationShutdown {
  private readonly logger = new Logger(UnitWorkService.name);
  private readonly reservations: UnitReservations;
  private readonly leases: Batcher<LeaseItem, Date | null>;
  private readonly outcomes: Batcher<OutcomeItem, OutcomeResult>;

  constructor(
    private readonly db: DbPool,
    private readonly runs: RunsService,
    @Inject(PLATFORM_SETTINGS) private readonly settings: PlatformSettings,
    @Inject(PLATFORM_CLOCK) private readonly clock: PlatformClock,
  ) {
    this.reservations = new UnitReservations(db, settings, clock);
    this.leases = db.batcher('unit_leases', (items: LeaseItem[]) => this.writeLeases(items));
    this.outcomes = db.batcher('unit_outcomes', (items: OutcomeItem[]) => this.writeOutcomes(items));
  }

  async next(request: AssignmentNextRequest): Promise<UnitAssignmentView | null> {
    const lineKey = request.line_id ?? '';
    for (;;) {
      const unit = await this.reservations.take(lineKey);
      if (!unit) return null;
      const item: LeaseItem = { id: newAssignmentId('unit'), unit, worker_id: request.worker_id };
      const expiresAt = await this.leases.submit(item);
      if (expiresAt) return view(item, expiresAt);
      // Aborted meanwhile, or taken over by another instance: its run's other units likely went the same way.
      this.reservations.forgetRun(unit.run_id);
    }
  }

  async complete(request: AssignmentActionRequest): Promise<AssignmentActionReply> {
    const body = validateContract(CompleteUnitAssignmentDto, request.body);
    return this.followUp(request, await this.finish(request, 'completed', body.output, null));
  }

  async flag(request: AssignmentActionRequest): Promise<AssignmentActionReply> {
    const body = validateContract(FlagAssignmentDto, request.body);
    return this.followUp(request, await this.finish(request, 'flagged', null, body.reason));
  }

  /** A graceful stop puts back the units this instance holds, instead of letting their reservations run out. */
  async onApplicationShutdown(): Promise<void> {
    await this.reservations
      .releaseAll()
      .catch((error: Error) =>
        this.logger.warn(`could not put back reserved units (they come back when their reservation ends): ${error.message}`),
      );
  }

  /** With `next` asked for, leases the worker's next unit once the complete or flag is stored. */
  private async followUp(request: AssignmentActionRequest, reply: AssignmentActionReply): Promise<AssignmentActionReply> {
    if (!request.next) return reply;
    try {
      return {
        ...reply,
        next: await this.next({ worker_id: request.worker_id, ...(request.next.line_id ? { line_id: request.next.line_id } : {}) }),
      };
    } catch (error) {
      // The outcome is stored and stands; the worker asks `next` again (docs/work-api.md).
      this.logger.warn(
        `${request.assignment_id} is ${reply.status}, but no next unit could be leased: ${error instanceof Error ? error.message : String(error)}`,
      );
      return { ...reply, next: null };
    }
  }

  private async finish(
    request: AssignmentActionRequest,
    outcome: UnitOutcome,
    output: Record<string, unknown> | null,
    reason: string | null,
  ): Promise<AssignmentActionReply> {
    const headers = withRequestIdHeader(undefined);
    const result = await this.outcomes.submit({
      assignment_id: request.assignment_id,
      worker_id: request.worker_id,
      outcome,
      output,
      reason,
      ...(headers ? { headers } : {}),
    });
    if ('error' in result) throw result.error;
    return result.reply;
  }

  /** Writes the leases of a batch; for each, when it ends, or null when the unit could not be leased. */
  private async writeLeases(items: LeaseItem[]): Promise<(Date | null)[]> {
    const now = this.clock.now();
    const expiresAt = new Date(now + this.settings.unitLeaseSeconds * 1000);
    const rows = items.map((item) => ({
      id: item.id,
      run_id: item.unit.run_id,
      seq: item.unit.seq,
      token: item.unit.token,
      worker_id: item.worker_id,
    }));
    const leased = new Set(
      (await this.db.query<{ id: string }>(LEASE, [JSON.stringify(rows), expiresAt, new Date(now)])).map((row) => row.id),
    );
    return items.map((item) => (leased.has(item.id) ? expiresAt : null));
  }

  /**
   * One transaction for the batch: lock and read, decide each outcome as if they came one after the other
   * (the same checks, in the same order, as one alone), then write the accepted ones from arrays.
   */
  private async writeOutcomes(items: OutcomeItem[]): Promise<OutcomeResult[]> {
    const now = this.clock.now();
    const { results, processed } = await this.db.transaction(async (sql) => {
      const states = new Map(
        (await sql.query<AssignmentState>(LOCK_ASSIGNMENTS, [[...new Set(items.map((item) => item.assignment_id))]])).map((state) => [
          state.id,
          state,
        ]),
      );
      const accepted: (OutcomeItem & { state: AssignmentState })[] = [];
      const results = items.map((item): OutcomeResult => {
        const state = states.get(item.assignment_id);
        const error = refusal(item, state, now);
        if (error) return { error };
        // A second outcome for the same assignment in this batch finds it already decided.
        state!.outcome = item.outcome;
        accepted.push({ ...item, state: state! });
        return { reply: { assignment_id: item.assignment_id, status: STATUS_OF[item.outcome] } };
      });
      return { results, processed: accepted.length ? await this.applyOutcomes(sql, accepted, now) : [] };
    });
    if (processed.length) this.runs.pokeRelay();
    return results;
  }

  private async applyOutcomes(sql: Sql, accepted: (OutcomeItem & { state: AssignmentState })[], now: number): Promise<string[]> {
    const rows = accepted.map((item) => ({
      id: item.assignment_id,
      run_id: item.state.run_id,
      seq: item.state.seq,
      status: STATUS_OF[item.outcome],
      outcome: item.outcome,
      output: item.output,
      reason: item.reason,
    }));
    const processed = (await sql.query<{ id: string }>(APPLY_OUTCOMES, [JSON.stringify(rows), new Date(now)])).map((row) => row.id);
    // The run's move to Processed and its callback commit together, once: only this update saw the counter
    // reach 0. The callback carries the request id of the outcome that finished the run (the last of it here).
    const finisher = new Map(accepted.map((item) => [item.state.run_id, item.headers]));
    await this.runs.enqueueCallbacks(
      sql,
      processed.map((id) => ({ id, headers: finisher.get(id) })),
    );
    return processed;
  }
}

/** Why a complete or flag is refused, checked in the order docs/work-api.md gives; undefined when it is accepted. */
function refusal(item: OutcomeItem, state: AssignmentState | undefined, now: number): DomainError | undefined {
  const id = item.assignment_id;
  // Another worker's assignment is not theirs to see: the same answer as an unknown id.
  if (!state || state.worker_id !== item.worker_id) return DomainError.notFound(`assignment ${id} not found`);
  if (state.outcome === 'completed' || state.outcome === 'flagged')
    return new DomainError(ErrorCode.Conflict, `assignment ${id} is already ${state.outcome}`);
  if (state.unit_status === UnitStatus.Aborted) {
    return new DomainError(ErrorCode.Conflict, `assignment ${id} cannot be ${item.outcome}: its run was aborted and the unit is Aborted`);
  }
  if (state.lease_assignment_id !== id || state.expires_at.getTime() < now) {
    return new DomainError(
      ErrorCode.Conflict,
      `assignment ${id} cannot be ${item.outcome}: its lease expired and the unit went back to the queue`,
    );
  }
  return undefined;
}

function view(item: LeaseItem, leaseExpiresAt: Date): UnitAssignmentView {
  return {
    assignment_id: item.id,
    kind: 'unit',
    run_id: item.unit.run_id,
    line_id: item.unit.line_id,
    input: item.unit.input,
    lease_expires_at: isoSeconds(leaseExpiresAt),
  };
}
