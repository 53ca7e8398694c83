import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import type { PublicSurface } from '@workline/db';
import {
  type AssignmentActionReply,
  type AssignmentActionRequest,
  type AssignmentNextRequest,
  CompleteUnitAssignmentDto,
  DomainError,
  ErrorCode,
  errorMessage,
  FlagAssignmentDto,
  newAssignmentId,
  type UnitAssignmentView,
  validateContract,
} from '@workline/contracts';
import type { Batcher, Sql } from '@workline/db';
import { withRequestIdHeader } from '@workline/observability';
import { PLATFORM_RUNS_CLOCK, PLATFORM_RUNS_SETTINGS, type PlatformRunsClock, type PlatformRunsSettings } from './platform-runs.settings';
import { UnitStatus } from './run-views';
import { RunsService } from './runs.service';
import type { ReservedUnit } from './unit-reservations';
import { isoSeconds } from './time-format';
import { type AssignmentState, UnitWorkRepository } from './unit-work.repository';

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

const STATUS_OF: Record<UnitOutcome, string> = { completed: UnitStatus.Completed, flagged: UnitStatus.Flagged };

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
  private readonly leases: Batcher<LeaseItem, Date | null>;
  private readonly outcomes: Batcher<OutcomeItem, OutcomeResult>;

  constructor(
    @Inject(UnitWorkRepository) private readonly work: PublicSurface<UnitWorkRepository>,
    private readonly runs: RunsService,
    @Inject(PLATFORM_RUNS_SETTINGS) private readonly settings: PlatformRunsSettings,
    @Inject(PLATFORM_RUNS_CLOCK) private readonly clock: PlatformRunsClock,
  ) {
    this.leases = work.batcher('unit_leases', (items: LeaseItem[]) => this.writeLeases(items));
    this.outcomes = work.batcher('unit_outcomes', (items: OutcomeItem[]) => this.writeOutcomes(items));
  }

  async next(request: AssignmentNextRequest): Promise<UnitAssignmentView | null> {
    const lineKey = request.line_id ?? '';
    for (;;) {
      const unit = await this.work.take(lineKey);
      if (!unit) return null;
      const item: LeaseItem = { id: newAssignmentId('unit'), unit, worker_id: request.worker_id };
      const expiresAt = await this.leases.submit(item);
      if (expiresAt) return view(item, expiresAt);
      // Aborted meanwhile, or taken over by another instance: its run's other units likely went the same way.
      this.work.forgetRun(unit.run_id);
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
    await this.work
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
      this.logger.warn(`${request.assignment_id} is ${reply.status}, but no next unit could be leased: ${errorMessage(error)}`);
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
    const leased = new Set(await this.work.lease(rows, expiresAt, new Date(now)));
    return items.map((item) => (leased.has(item.id) ? expiresAt : null));
  }

  /**
   * A batch's outcomes in one statement (FINISH_ASSIGNMENTS): it decides each as `refusal` does and writes
   * the accepted ones, except those that would finish their run; those, and every outcome of a batch that
   * names an assignment twice, are decided again in a transaction (writeOutcomesWithRuns).
   */
  private async writeOutcomes(items: OutcomeItem[]): Promise<OutcomeResult[]> {
    const now = this.clock.now();
    if (new Set(items.map((item) => item.assignment_id)).size < items.length) return this.writeOutcomesWithRuns(items, now);
    const tried = await this.work.finish(
      items.map((item) => ({ id: item.assignment_id, worker_id: item.worker_id, ...outcomeColumns(item) })),
      new Date(now),
    );
    const states = new Map(tried.map((state) => [state.id, state]));
    const results = items.map((item): OutcomeResult | undefined => {
      const state = states.get(item.assignment_id);
      if (state?.written) return accept(item);
      const error = refusal(item, state, now);
      // Accepted but not written: it finishes its run, which must commit with the run's callback.
      return error ? { error } : undefined;
    });
    const left = items.filter((_, i) => !results[i]);
    if (!left.length) return results as OutcomeResult[];
    const decided = await this.writeOutcomesWithRuns(left, now);
    return results.map((result) => result ?? decided.shift()!);
  }

  /**
   * One transaction for the batch: lock and read, decide each outcome as if they came one after the other
   * (the same checks, in the same order, as one alone), then write the accepted ones from arrays, with the
   * callbacks of the runs they finish.
   */
  private async writeOutcomesWithRuns(items: OutcomeItem[], now: number): Promise<OutcomeResult[]> {
    const { results, processed } = await this.work.transaction(async (sql) => {
      const locked = await this.work.lockAssignments(sql, [...new Set(items.map((item) => item.assignment_id))]);
      const states = new Map(locked.map((state) => [state.id, state]));
      const accepted: (OutcomeItem & { state: AssignmentState })[] = [];
      const results = items.map((item): OutcomeResult => {
        const state = states.get(item.assignment_id);
        const error = refusal(item, state, now);
        if (error) return { error };
        // A second outcome for the same assignment in this batch finds it already decided.
        state!.outcome = item.outcome;
        accepted.push({ ...item, state: state! });
        return accept(item);
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
      ...outcomeColumns(item),
    }));
    const processed = await this.work.applyOutcomes(sql, rows, new Date(now));
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

/** What an accepted complete or flag writes on its unit and assignment. */
const outcomeColumns = (item: OutcomeItem) => ({
  status: STATUS_OF[item.outcome],
  outcome: item.outcome,
  output: item.output,
  reason: item.reason,
});

const accept = (item: OutcomeItem): OutcomeResult => ({
  reply: { assignment_id: item.assignment_id, status: STATUS_OF[item.outcome] },
});

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
