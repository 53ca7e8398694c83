import { Injectable } from '@nestjs/common';
import { afterCursor, type MetadataItemView, type TaskState } from '@workline/contracts';
import { type Batcher, DbPool, type OversightTask, type Prisma, PrismaService, type PublicSurface, statement } from '@workline/db';

/** A task row as task creation inserts it (state QUEUED, created and updated now). */
export interface NewTask {
  id: string;
  workstream_id: string;
  account_id: string;
  configuration_id: string;
  media_key: string;
  bucket_id: string | null;
  media_type: string;
  callback_url: string | null;
  sealed_authorization: string | null;
  sealed_api_key: string;
  existing_tags: { value: string; confidence_score: number | undefined }[];
  /** The client's items; the worker's are added after them when the task is completed. */
  metadata: MetadataItemView[];
  idempotency_key: string | null;
  idempotency_hash: string | null;
}

/** What became of a task of a batch. */
export type TaskInsert = 'inserted' | 'key taken' | 'grant gone';

export interface GrantRow {
  id: string;
  workstream_id: string;
  configuration_id: string;
}

/** What the admin task list shows, and all it reads: never the sealed API key or callback credentials. */
const ADMIN_TASK_VIEW_COLUMNS = {
  id: true,
  state: true,
  mediaKey: true,
  configurationId: true,
  bucketId: true,
  existingTags: true,
  updatedTags: true,
  metadata: true,
  error: true,
  createdAt: true,
  updatedAt: true,
  workstreamId: true,
  accountId: true,
} as const satisfies Prisma.OversightTaskSelect;

export type AdminTaskRow = Pick<OversightTask, keyof typeof ADMIN_TASK_VIEW_COLUMNS>;

export interface TaskListFilter {
  workstreamId?: string;
  state?: TaskState;
  /** A `next_cursor` of an earlier page: the rows after it. */
  cursor?: string;
}

/**
 * The tasks of a batch in one statement (one commit). The upload grants of their media are held (FOR SHARE)
 * until the tasks commit, so the grant sweep cannot delete the media in between (it locks grants FOR UPDATE
 * SKIP LOCKED); a task whose grant the sweep removed first is not inserted. A row whose Idempotency-Key is
 * already taken in its workstream (by an earlier task, or by another row of the same batch) is skipped.
 * Answers the ids inserted and the media keys held.
 */
const INSERT_TASKS = statement(
  'oversight_tasks_insert',
  `with batch as materialized (
     select * from jsonb_to_recordset($1::jsonb) as x(id text, workstream_id text, account_id text, configuration_id text, media_key text,
       bucket_id text, media_type text, callback_url text, sealed_authorization text, sealed_api_key text, existing_tags jsonb,
       metadata jsonb, idempotency_key text, idempotency_hash text)
   ), held as materialized (
     select id from oversight_media_grant where id in (select media_key from batch where bucket_id is null) for share
   ), inserted as (
     insert into oversight_task (id, workstream_id, account_id, configuration_id, media_key, bucket_id, media_type, callback_url,
       sealed_authorization, sealed_api_key, state, existing_tags, metadata, idempotency_key, idempotency_hash, created_at, updated_at)
     select id, workstream_id, account_id, configuration_id, media_key, bucket_id, media_type, callback_url,
       sealed_authorization, sealed_api_key, 'QUEUED', existing_tags, metadata, idempotency_key, idempotency_hash, now(), now()
     from batch where bucket_id is not null or media_key in (select id from held)
     on conflict (workstream_id, idempotency_key) do nothing
     returning id
   )
   select (select coalesce(array_agg(id), '{}') from inserted) as inserted, (select coalesce(array_agg(id), '{}') from held) as held`,
);

const SELECT_GRANTS = statement(
  'oversight_media_grants_by_id',
  'select id, workstream_id, configuration_id from oversight_media_grant where id = any($1::text[])',
);

const SELECT_TASK_BY_KEY = statement(
  'oversight_task_by_idempotency_key',
  'select id, idempotency_hash as "idempotencyHash" from oversight_task where workstream_id = $1 and idempotency_key = $2',
);

/** The task rows of PostgreSQL and the upload grants task creation reads (TasksService holds the rules). */
@Injectable()
export class TasksRepository {
  /** Task creations that arrive together are inserted together (group commit, docs/decisions.md). */
  private readonly inserts: Batcher<NewTask, TaskInsert>;
  /** Upload grants looked up together: one query for the batch. */
  private readonly grantLookups: Batcher<string, GrantRow | undefined>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DbPool,
  ) {
    this.inserts = db.batcher('tasks', async (tasks: NewTask[]) => {
      const [result] = await db.query<{ inserted: string[]; held: string[] }>(INSERT_TASKS, [JSON.stringify(tasks)]);
      const inserted = new Set(result.inserted);
      const held = new Set(result.held);
      return tasks.map((task): TaskInsert =>
        inserted.has(task.id) ? 'inserted' : task.bucket_id === null && !held.has(task.media_key) ? 'grant gone' : 'key taken',
      );
    });
    this.grantLookups = db.batcher('media_grant_lookups', async (ids: string[]) => {
      const rows = new Map((await db.query<GrantRow>(SELECT_GRANTS, [ids])).map((row) => [row.id, row]));
      return ids.map((id) => rows.get(id));
    });
  }

  /** Inserts a task with the others of its batch, holding its upload grant until they commit. */
  insert(task: NewTask): Promise<TaskInsert> {
    return this.inserts.submit(task);
  }

  grant(mediaKey: string): Promise<GrantRow | undefined> {
    return this.grantLookups.submit(mediaKey);
  }

  async findByIdempotencyKey(workstreamId: string, key: string): Promise<{ id: string; idempotencyHash: string | null } | null> {
    return (await this.db.query<{ id: string; idempotencyHash: string | null }>(SELECT_TASK_BY_KEY, [workstreamId, key]))[0] ?? null;
  }

  findById(id: string): Promise<OversightTask | null> {
    return this.prisma.oversightTask.findUnique({ where: { id } });
  }

  /** At most `take` tasks matching the filter, newest first (created_at desc, id desc). */
  list(filter: TaskListFilter, take: number): Promise<AdminTaskRow[]> {
    const where: Prisma.OversightTaskWhereInput[] = [];
    if (filter.workstreamId !== undefined) where.push({ workstreamId: filter.workstreamId });
    if (filter.state !== undefined) where.push({ state: filter.state });
    if (filter.cursor !== undefined) where.push(afterCursor(filter.cursor));
    return this.prisma.oversightTask.findMany({
      where: { AND: where },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
      select: ADMIN_TASK_VIEW_COLUMNS,
    });
  }
}

export type TaskRows = PublicSurface<TasksRepository>;
