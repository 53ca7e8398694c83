import { Inject, Injectable } from '@nestjs/common';
import {
  type AssignmentActionRequest,
  type AssignmentNextRequest,
  ASSIGNMENT_ID_PREFIX,
  CompleteTaskAssignmentDto,
  DomainError,
  ErrorCode,
  FlagAssignmentDto,
  type MetadataItemView,
  type TagView,
  type TaskAssignmentView,
  taskMediaPath,
  validateContract,
} from '@workline/contracts';
import { OutboxRelay } from '@workline/messaging';
import { signPath, urlSigningKey } from '@workline/secrets';
import { randomBytes } from 'node:crypto';
import { type AssignmentRows, AssignmentsRepository, type TaskOutcome } from './assignments.repository';
import { OVERSIGHT_OPTIONS, type OversightOptions } from './oversight.options';
import { TasksService } from './tasks.service';

/** Tasks whose media fails to read are failed and skipped; past this many in one call, answer "none". */
const MAX_SKIPPED_PER_NEXT = 20;

/**
 * Work API for tasks: leases (QUEUED, or IN_PROGRESS whose lease ran out) with FOR UPDATE SKIP LOCKED, so
 * two workers never hold the same task; complete and flag finish the task and emit its event.
 */
@Injectable()
export class AssignmentsService {
  private readonly signingKey: string;

  constructor(
    @Inject(AssignmentsRepository) private readonly repository: AssignmentRows,
    private readonly outbox: OutboxRelay,
    private readonly tasks: TasksService,
    @Inject(OVERSIGHT_OPTIONS) private readonly options: OversightOptions,
  ) {
    this.signingKey = urlSigningKey(options.secretsKey);
  }

  async next(request: AssignmentNextRequest): Promise<TaskAssignmentView | null> {
    for (let skipped = 0; skipped <= MAX_SKIPPED_PER_NEXT; skipped++) {
      const outcome = await this.repository.withNextDueTask(async (task, locked) => {
        if (!task) return { kind: 'none' as const };
        const unreadable = await this.tasks.unreadableMedia(task);
        if (unreadable) {
          await locked.finish(task.id, { state: 'ERROR', error: unreadable });
          return { kind: 'failed' as const };
        }
        const leaseExpiresAt = new Date(Date.now() + this.options.leaseSeconds * 1000);
        const assignmentId = `${ASSIGNMENT_ID_PREFIX.task}${randomBytes(16).toString('base64url')}`;
        const leased = await locked.lease(task.id, { assignmentId, workerId: request.worker_id, leaseExpiresAt });
        return { kind: 'leased' as const, task: leased, leaseExpiresAt, assignmentId };
      });
      if (outcome.kind === 'none') return null;
      if (outcome.kind === 'failed') {
        this.outbox.poke();
        continue;
      }
      const { task, leaseExpiresAt, assignmentId } = outcome;
      return {
        assignment_id: assignmentId,
        kind: 'task',
        task_id: task.id,
        media_url: `${this.options.publicUrl}${signPath(this.signingKey, 'GET', taskMediaPath(task.id), leaseExpiresAt)}`,
        media_type: task.mediaType,
        existing_tags: (task.existingTags as TagView[] | null) ?? [],
        metadata: (task.metadata as MetadataItemView[] | null) ?? [],
        lease_expires_at: leaseExpiresAt.toISOString(),
      };
    }
    return null;
  }

  async complete(request: AssignmentActionRequest): Promise<object> {
    const body = validateContract(CompleteTaskAssignmentDto, request.body);
    return this.close(request, {
      state: 'COMPLETED',
      updatedTags: body.updated_tags.map((t) => ({ value: t.value, confidence_score: t.confidence_score })),
      metadata: (body.metadata ?? []).map((m) => ({ key: m.key, value: m.value })),
    });
  }

  async flag(request: AssignmentActionRequest): Promise<object> {
    const body = validateContract(FlagAssignmentDto, request.body);
    return this.close(request, { state: 'ERROR', error: `flagged by the worker: ${body.reason}` });
  }

  private async close(request: AssignmentActionRequest, outcome: TaskOutcome): Promise<object> {
    const result = await this.repository.withAssignedTask(request.assignment_id, async (task, locked) => {
      if (!task || task.workerId !== request.worker_id) throw DomainError.notFound(`assignment ${request.assignment_id} not found`);
      if (task.state !== 'IN_PROGRESS') {
        throw new DomainError(ErrorCode.Conflict, `assignment ${request.assignment_id} is already closed: its task is ${task.state}`);
      }
      // As for units: a lease that ran out is over even while nobody has taken the task since (docs/work-api.md).
      if (task.leaseExpiresAt && task.leaseExpiresAt.getTime() < Date.now()) {
        throw new DomainError(
          ErrorCode.Conflict,
          `assignment ${request.assignment_id} cannot be ${outcome.state === 'COMPLETED' ? 'completed' : 'flagged'}: its ` +
            `lease expired and the task went back to the queue`,
        );
      }
      // The worker's items follow the client's, given at creation.
      await locked.finish(
        task.id,
        outcome.state === 'COMPLETED' ? { ...outcome, metadata: [...task.metadata, ...outcome.metadata] } : outcome,
      );
      return { assignment_id: request.assignment_id, kind: 'task', task_id: task.id, state: outcome.state };
    });
    this.outbox.poke();
    return result;
  }
}
