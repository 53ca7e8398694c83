import { Inject, Injectable, Logger } from '@nestjs/common';
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
import { Prisma, PrismaService } from '@workline/db';
import type { Tx } from '@workline/kafka';
import { PLATFORM_SETTINGS, type PlatformSettings } from './platform.settings';
import { RunsService } from './runs.service';
import { UnitStatus, type UnitStatusValue } from './run-views';
import { isoSeconds } from './time-format';

interface ClaimedUnit {
  run_id: string;
  seq: number;
  line_id: string;
  input: Record<string, unknown>;
  lease_expires_at: Date;
}

interface AssignmentState {
  run_id: string;
  seq: number;
  worker_id: string;
  outcome: string | null;
  expired: boolean;
  unit_status: string;
  lease_assignment_id: string | null;
}

export type UnitOutcome = 'completed' | 'flagged';

/**
 * The work API for units: a worker leases the oldest unprocessed unit (a lease, not a lock held open),
 * then completes or flags it before the lease ends. Leases live in PostgreSQL, so any number of
 * platform-runs instances hand out units without ever giving one unit to two workers at once.
 */
@Injectable()
export class UnitWorkService {
  private readonly logger = new Logger(UnitWorkService.name);

  constructor(
    private readonly prisma: PrismaService,
    private readonly runs: RunsService,
    @Inject(PLATFORM_SETTINGS) private readonly settings: PlatformSettings,
  ) {}

  async next(request: AssignmentNextRequest): Promise<UnitAssignmentView | null> {
    const assignmentId = newAssignmentId('unit');
    const lineFilter = request.line_id ? Prisma.sql`and line_id = ${request.line_id}` : Prisma.empty;
    return this.prisma.$transaction(async (tx) => {
      // SKIP LOCKED: concurrent claims pass over a unit another transaction is taking instead of queueing
      // behind it; the lease columns then keep it from everyone until the lease ends.
      const [unit] = await tx.$queryRaw<ClaimedUnit[]>`
        with candidate as (
          select run_id, seq from platform_unit
          where status = ${UnitStatus.Processing} and (lease_expires_at is null or lease_expires_at < now()) ${lineFilter}
          order by created_at, run_id, seq
          limit 1
          for update skip locked
        )
        update platform_unit u
        set lease_assignment_id = ${assignmentId}, lease_expires_at = now() + make_interval(secs => ${this.settings.unitLeaseSeconds})
        from candidate c
        where u.run_id = c.run_id and u.seq = c.seq
        returning u.run_id, u.seq, u.line_id, u.input, u.lease_expires_at`;
      if (!unit) return null;
      await tx.unitAssignment.create({
        data: { id: assignmentId, runId: unit.run_id, seq: unit.seq, workerId: request.worker_id, expiresAt: unit.lease_expires_at },
      });
      return {
        assignment_id: assignmentId,
        kind: 'unit',
        run_id: unit.run_id,
        line_id: unit.line_id,
        input: unit.input,
        lease_expires_at: isoSeconds(unit.lease_expires_at),
      };
    });
  }

  async complete(request: AssignmentActionRequest): Promise<AssignmentActionReply> {
    const body = validateContract(CompleteUnitAssignmentDto, request.body);
    return this.followUp(request, await this.finish(request, 'completed', UnitStatus.Completed, body.output as Prisma.InputJsonObject, null));
  }

  async flag(request: AssignmentActionRequest): Promise<AssignmentActionReply> {
    const body = validateContract(FlagAssignmentDto, request.body);
    return this.followUp(request, await this.finish(request, 'flagged', UnitStatus.Flagged, null, body.reason));
  }

  /** With `next` asked for, leases the worker's next unit once the complete or flag is stored. */
  private async followUp(request: AssignmentActionRequest, reply: AssignmentActionReply): Promise<AssignmentActionReply> {
    if (!request.next) return reply;
    try {
      return { ...reply, next: await this.next({ worker_id: request.worker_id, ...(request.next.line_id ? { line_id: request.next.line_id } : {}) }) };
    } catch (error) {
      // The outcome is stored and stands; the worker asks `next` again (docs/work-api.md).
      this.logger.warn(`${request.assignment_id} is ${reply.status}, but no next unit could be leased: ${error instanceof Error ? error.message : String(error)}`);
      return { ...reply, next: null };
    }
  }

  private async finish(
    request: AssignmentActionRequest,
    outcome: UnitOutcome,
    status: UnitStatusValue,
    output: Prisma.InputJsonObject | null,
    reason: string | null,
  ): Promise<AssignmentActionReply> {
    const id = request.assignment_id;
    const processed = await this.prisma.$transaction(async (tx) => {
      const state = await this.lockAssignment(tx, id);
      // Another worker's assignment is not theirs to see: the same answer as an unknown id.
      if (!state || state.worker_id !== request.worker_id) throw DomainError.notFound(`assignment ${id} not found`);
      if (state.outcome === 'completed' || state.outcome === 'flagged') {
        throw new DomainError(ErrorCode.Conflict, `assignment ${id} is already ${state.outcome}`);
      }
      if (state.unit_status === UnitStatus.Aborted) {
        throw new DomainError(ErrorCode.Conflict, `assignment ${id} cannot be ${outcome}: its run was aborted and the unit is Aborted`);
      }
      if (state.lease_assignment_id !== id || state.expired) {
        throw new DomainError(ErrorCode.Conflict, `assignment ${id} cannot be ${outcome}: its lease expired and the unit went back to the queue`);
      }
      await tx.$executeRaw`
        update platform_unit set status = ${status}, output = ${output === null ? null : JSON.stringify(output)}::jsonb,
          flag_reason = ${reason}, processed_at = now(), lease_assignment_id = null, lease_expires_at = null
        where run_id = ${state.run_id} and seq = ${state.seq}`;
      await tx.unitAssignment.update({ where: { id }, data: { outcome, endedAt: new Date() } });
      return this.runs.unitsFinished(tx, state.run_id, 1);
    });
    if (processed) this.runs.pokeRelay();
    return { assignment_id: id, status };
  }

  /** Locks the assignment and its unit (an abort or another complete of it waits) and reads where both stand. */
  private async lockAssignment(tx: Tx, id: string): Promise<AssignmentState | undefined> {
    const [state] = await tx.$queryRaw<AssignmentState[]>`
      select a.run_id, a.seq, a.worker_id, a.outcome, a.expires_at < now() as expired, u.status as unit_status, u.lease_assignment_id
      from platform_unit_assignment a
      join platform_unit u on u.run_id = a.run_id and u.seq = a.seq
      where a.id = ${id}
      for update`;
    return state;
  }
}
