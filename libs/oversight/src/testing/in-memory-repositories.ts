import type { BlobStore } from '@workline/blob-store';
import { decodeCursor } from '@workline/contracts';
import type { OversightBucket, OversightConfiguration, OversightMediaGrant, OversightTask, Prisma } from '@workline/db';
import type { AssignedTask, AssignmentRows, LockedTasks } from '../assignments.repository';
import type { BucketRows, NewBucket } from '../buckets.repository';
import type { ConfigurationRows, NewConfiguration } from '../configurations.repository';
import type { MediaGrantRows, NewMediaGrant } from '../media-grants.repository';
import type { OversightOptions } from '../oversight.options';
import type { AdminTaskRow, GrantRow, NewTask, TaskInsert, TaskListFilter, TaskRows } from '../tasks.repository';

/**
 * In-memory stand-ins for the oversight repositories, for the services' unit tests (*.spec.ts): rows in
 * maps, so a test drives the domain rules with no database. What the SQL itself does is proven by the
 * integration suites against PostgreSQL.
 */

export const TEST_SECRETS_KEY = 'a-secrets-key-of-at-least-thirty-two-characters';
export const TEST_MEDIA_KEY_RETENTION_SECONDS = 3600;

/** Options as apps/oversight builds them, around the given blob store. */
export const testOversightOptions = (blobs: BlobStore): OversightOptions => ({
  publicUrl: 'https://workline.test',
  secretsKey: TEST_SECRETS_KEY,
  blobs,
  leaseSeconds: 300,
  mediaKeyRetentionSeconds: TEST_MEDIA_KEY_RETENTION_SECONDS,
  uploadSweepSeconds: 60,
});

export class InMemoryConfigurations implements ConfigurationRows {
  readonly rows = new Map<string, OversightConfiguration>();
  /** How many times a configuration was read (the service caches what it found). */
  reads = 0;

  async create(row: NewConfiguration): Promise<OversightConfiguration> {
    const created = { ...row, createdAt: new Date() };
    this.rows.set(row.id, created);
    return created;
  }

  async findById(id: string): Promise<OversightConfiguration | null> {
    this.reads++;
    return this.rows.get(id) ?? null;
  }
}

export class InMemoryBuckets implements BucketRows {
  readonly rows = new Map<string, OversightBucket>();

  async create(row: NewBucket): Promise<OversightBucket> {
    const created: OversightBucket = {
      root: null,
      s3: null,
      sealedSecretAccessKey: null,
      ...row,
      createdAt: new Date(),
    };
    this.rows.set(row.id, created);
    return created;
  }

  async findById(id: string): Promise<OversightBucket | null> {
    return this.rows.get(id) ?? null;
  }
}

export class InMemoryMediaGrants implements MediaGrantRows {
  readonly rows = new Map<string, OversightMediaGrant>();
  /** Media keys a task uses (uploaded media, no bucket). */
  readonly usedByTasks = new Set<string>();
  /** Grants a task creation holds (FOR SHARE) right now. */
  readonly held = new Set<string>();

  async create(grant: NewMediaGrant): Promise<void> {
    this.rows.set(grant.id, { ...grant, createdAt: new Date() });
  }

  async expiredBefore(cutoff: Date, limit: number): Promise<string[]> {
    return [...this.rows.values()]
      .filter((grant) => grant.expiresAt < cutoff)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit)
      .map((grant) => grant.id);
  }

  async retire(id: string, beforeDelete: (usedByTask: boolean) => Promise<void>): Promise<boolean> {
    if (this.held.has(id) || !this.rows.has(id)) return false;
    await beforeDelete(this.usedByTasks.has(id));
    this.rows.delete(id);
    return true;
  }
}

/** A queued task row, as task creation stores it. */
export const queuedTask = (fields: Partial<OversightTask> & { id: string }): OversightTask => ({
  workstreamId: 'ws-1',
  accountId: 'acc-1',
  configurationId: 'cfg-1',
  mediaKey: `med_${fields.id}`,
  bucketId: null,
  mediaType: 'image/png',
  callbackUrl: null,
  sealedAuthorization: null,
  sealedApiKey: 'sealed',
  state: 'QUEUED',
  existingTags: [],
  updatedTags: null,
  metadata: null,
  error: null,
  assignmentId: null,
  workerId: null,
  leaseExpiresAt: null,
  idempotencyKey: null,
  idempotencyHash: null,
  createdAt: new Date(),
  updatedAt: new Date(),
  ...fields,
});

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
    return work(task && { id: task.id, state: task.state, workerId: task.workerId }, this.lockedTasks());
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
            ? { updatedTags: outcome.updatedTags as unknown as Prisma.JsonArray, metadata: outcome.metadata as unknown as Prisma.JsonArray }
            : { error: outcome.error };
        this.events.push(update(taskId, { state: outcome.state, leaseExpiresAt: null, ...fields }));
      },
    };
  }
}

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
