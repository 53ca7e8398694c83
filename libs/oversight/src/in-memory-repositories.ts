import type { BlobStore } from '@workline/blob-store';
import type { OversightBucket, OversightConfiguration, OversightMediaGrant, OversightTask, Prisma } from '@workline/db';
import type { AssignedTask, AssignmentRows, LockedTasks } from './assignments.repository';
import type { BucketRows, NewBucket } from './buckets.repository';
import type { ConfigurationRows, NewConfiguration } from './configurations.repository';
import type { MediaGrantRows, NewMediaGrant } from './media-grants.repository';
import type { OversightOptions } from './oversight.options';

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
