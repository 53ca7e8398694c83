import type { OversightTask, Prisma } from '@workline/db';
import type { AssignedTask, AssignmentRows, LockedTasks } from '../assignments.repository';

export class InMemoryAssignments implements AssignmentRows {
  readonly tasks = new Map<string, OversightTask>();
  /** Tasks another transaction holds locked (skipped, as FOR UPDATE SKIP LOCKED does). */
  readonly locked = new Set<string>();
  /** The finished tasks whose event went into the outbox, in order. */
  readonly events: OversightTask[] = [];

  add(...tasks: OversightTask[]): this {
    for (const task of tasks) this.tasks.set(task.id, task);
    return this;
  }

  async withNextDueTask<T>(work: (task: OversightTask | undefined, tasks: LockedTasks) => Promise<T>): Promise<T> {
    const due = [...this.tasks.values()]
      .filter((task) => !this.locked.has(task.id))
      .filter((task) => task.state === 'QUEUED' || (task.state === 'IN_PROGRESS' && task.leaseExpiresAt! < new Date()))
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id));
    return work(due[0], this.lockedTasks());
  }

  async withAssignedTask<T>(assignmentId: string, work: (task: AssignedTask | undefined, tasks: LockedTasks) => Promise<T>): Promise<T> {
    const task = [...this.tasks.values()].find((row) => row.assignmentId === assignmentId);
    return work(
      task && {
        id: task.id,
        state: task.state,
        workerId: task.workerId,
        leaseExpiresAt: task.leaseExpiresAt,
        metadata: (task.metadata as AssignedTask['metadata'] | null) ?? [],
      },
      this.lockedTasks(),
    );
  }

  private lockedTasks(): LockedTasks {
    const update = (taskId: string, fields: Partial<OversightTask>) => {
      const task = { ...this.tasks.get(taskId)!, ...fields, updatedAt: new Date() };
      this.tasks.set(taskId, task);
      return task;
    };
    return {
      lease: async (taskId, lease) => update(taskId, { state: 'IN_PROGRESS', ...lease }),
      finish: async (taskId, outcome) => {
        const fields: Partial<OversightTask> =
          outcome.state === 'COMPLETED'
            ? {
                updatedTags: outcome.updatedTags as unknown as Prisma.JsonArray,
                metadata: outcome.metadata as unknown as Prisma.JsonArray,
              }
            : { error: outcome.error };
        this.events.push(update(taskId, { state: outcome.state, leaseExpiresAt: null, ...fields }));
      },
    };
  }
}
