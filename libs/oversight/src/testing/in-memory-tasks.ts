import { decodeCursor } from '@workline/contracts';
import type { OversightTask, Prisma } from '@workline/db';
import type { AdminTaskRow, GrantRow, NewTask, TaskInsert, TaskListFilter, TaskRows } from '../tasks.repository';
import type { InMemoryMediaGrants } from './in-memory-media-grants';
import { queuedTask } from './task-rows';

/** Tasks, with the upload grants task creation reads from `grants`. */
export class InMemoryTasks implements TaskRows {
  readonly rows = new Map<string, OversightTask>();

  constructor(private readonly grants: InMemoryMediaGrants) {}

  async insert(task: NewTask): Promise<TaskInsert> {
    if (task.bucket_id === null && !this.grants.rows.has(task.media_key)) return 'grant gone';
    if (task.idempotency_key !== null && (await this.findByIdempotencyKey(task.workstream_id, task.idempotency_key))) return 'key taken';
    const now = new Date();
    this.rows.set(
      task.id,
      queuedTask({
        id: task.id,
        workstreamId: task.workstream_id,
        accountId: task.account_id,
        configurationId: task.configuration_id,
        mediaKey: task.media_key,
        bucketId: task.bucket_id,
        mediaType: task.media_type,
        callbackUrl: task.callback_url,
        sealedAuthorization: task.sealed_authorization,
        sealedApiKey: task.sealed_api_key,
        existingTags: task.existing_tags as unknown as Prisma.JsonArray,
        metadata: task.metadata as unknown as Prisma.JsonArray,
        idempotencyKey: task.idempotency_key,
        idempotencyHash: task.idempotency_hash,
        createdAt: now,
        updatedAt: now,
      }),
    );
    return 'inserted';
  }

  async grant(mediaKey: string): Promise<GrantRow | undefined> {
    const grant = this.grants.rows.get(mediaKey);
    return grant && { id: grant.id, workstream_id: grant.workstreamId, configuration_id: grant.configurationId };
  }

  async findByIdempotencyKey(workstreamId: string, key: string): Promise<OversightTask | null> {
    return [...this.rows.values()].find((task) => task.workstreamId === workstreamId && task.idempotencyKey === key) ?? null;
  }

  async findById(id: string): Promise<OversightTask | null> {
    return this.rows.get(id) ?? null;
  }

  async list(filter: TaskListFilter, take: number): Promise<AdminTaskRow[]> {
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
    const olderFirst = (a: { createdAt: Date; id: string }, b: { createdAt: Date; id: string }) =>
      a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);
    return [...this.rows.values()]
      .filter((task) => filter.workstreamId === undefined || task.workstreamId === filter.workstreamId)
      .filter((task) => filter.state === undefined || task.state === filter.state)
      .filter((task) => !after || olderFirst(task, after) < 0)
      .sort((a, b) => olderFirst(b, a))
      .slice(0, take);
  }
}
