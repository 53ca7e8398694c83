import { Injectable } from '@nestjs/common';
import type { MetadataItemView, TagView } from '@workline/contracts';
import { type OversightTask, PLAN_ALONG_INDEXES, Prisma, PrismaService, type PublicSurface } from '@workline/db';
import type { Tx } from '@workline/messaging';
import { enqueueTaskEvent } from './task-events';

/**
 * Due tasks looked at per `next`, of each kind (queued, lease ran out): more than the transactions that can
 * hold task locks at once (each instance's pool has 10 connections), so one is always free if any is due.
 */
const DUE_CANDIDATES = 64;

/**
 * The oldest task due for a worker, locked. The oldest queued tasks and the oldest whose lease ran out, each
 * read along an index that gives their order and stopping at DUE_CANDIDATES, and then the oldest of those not
 * locked by another worker: one OR over the table made PostgreSQL scan every task and sort every due one on
 * each call (106 ms with 145,000 queued; 0.5 ms so). More candidates than transactions can hold locks at once
 * (the app's pool, 10 per instance), so a due task is never missed. The state is checked again on the row it
 * locks: a task leased and committed meanwhile is passed over. It runs planned along indexes: statistics
 * taken before a burst of task creations made the planner read every queued task for each call (0.5–2 s with
 * 100,000 queued; the plan is checked in task-queue-plans.integration-spec.ts).
 */
export const NEXT_DUE_TASK = `
  select id from oversight_task
  where id in (
    (select id from oversight_task where state = 'QUEUED' order by created_at, id limit ${DUE_CANDIDATES})
    union all
    (select id from oversight_task where state = 'IN_PROGRESS' and lease_expires_at < now() order by created_at, id limit ${DUE_CANDIDATES})
  )
  and (state = 'QUEUED' or (state = 'IN_PROGRESS' and lease_expires_at < now()))
  order by created_at, id
  limit 1
  for update skip locked`;

/** How a task ends: with the worker's result, or failed. */
export type TaskOutcome =
  { state: 'COMPLETED'; updatedTags: TagView[]; metadata: { key: string; value: string }[] } | { state: 'ERROR'; error: string };

export interface TaskLease {
  assignmentId: string;
  workerId: string;
  leaseExpiresAt: Date;
}

/** A task held by an assignment, as closing it needs it. */
export interface AssignedTask {
  id: string;
  state: string;
  workerId: string | null;
  /** When the assignment's lease runs out (null once the task is finished). */
  leaseExpiresAt: Date | null;
  /** The client's items given at creation (the worker's follow them when it completes the task). */
  metadata: MetadataItemView[];
}

/** What the work API does to a task it holds locked, in the transaction that holds it. */
export interface LockedTasks {
  /** Hands the task to a worker until the lease ends (IN_PROGRESS). */
  lease(taskId: string, lease: TaskLease): Promise<OversightTask>;
  /** Moves the task to COMPLETED or ERROR and writes its event into the outbox. */
  finish(taskId: string, outcome: TaskOutcome): Promise<void>;
}

/** The task rows the work API leases and finishes (AssignmentsService holds the rules). */
@Injectable()
export class AssignmentsRepository {
  constructor(private readonly prisma: PrismaService) {}

  /**
   * Runs `work` in one transaction holding the oldest task due for a worker (QUEUED, or IN_PROGRESS whose lease
   * ran out), locked FOR UPDATE SKIP LOCKED so two workers never get the same one; undefined when none is due.
   */
  withNextDueTask<T>(work: (task: OversightTask | undefined, tasks: LockedTasks) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      await tx.$queryRawUnsafe(PLAN_ALONG_INDEXES);
      const [candidate] = await tx.$queryRawUnsafe<{ id: string }[]>(NEXT_DUE_TASK);
      const task = candidate ? await tx.oversightTask.findUniqueOrThrow({ where: { id: candidate.id } }) : undefined;
      return work(task, lockedTasks(tx));
    });
  }

  /** Runs `work` in one transaction holding the task of an assignment (FOR UPDATE); undefined when none has it. */
  withAssignedTask<T>(assignmentId: string, work: (task: AssignedTask | undefined, tasks: LockedTasks) => Promise<T>): Promise<T> {
    return this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<
        { id: string; state: string; worker_id: string | null; lease_expires_at: Date | null; metadata: AssignedTask['metadata'] | null }[]
      >`
        select id, state, worker_id, lease_expires_at, metadata from oversight_task where assignment_id = ${assignmentId} for update`;
      return work(
        row && {
          id: row.id,
          state: row.state,
          workerId: row.worker_id,
          leaseExpiresAt: row.lease_expires_at,
          metadata: row.metadata ?? [],
        },
        lockedTasks(tx),
      );
    });
  }
}

function lockedTasks(tx: Tx): LockedTasks {
  return {
    lease: (taskId, lease) => tx.oversightTask.update({ where: { id: taskId }, data: { state: 'IN_PROGRESS', ...lease } }),
    finish: async (taskId, outcome) => {
      const task = await tx.oversightTask.update({
        where: { id: taskId },
        data: {
          state: outcome.state,
          leaseExpiresAt: null,
          ...(outcome.state === 'COMPLETED'
            ? {
                updatedTags: outcome.updatedTags as unknown as Prisma.InputJsonArray,
                metadata: outcome.metadata as unknown as Prisma.InputJsonArray,
              }
            : { error: outcome.error }),
        },
      });
      const configuration = await tx.oversightConfiguration.findUniqueOrThrow({ where: { id: task.configurationId } });
      await enqueueTaskEvent(tx, task, configuration);
    },
  };
}

export type AssignmentRows = PublicSurface<AssignmentsRepository>;
