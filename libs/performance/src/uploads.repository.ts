import { Injectable } from '@nestjs/common';
import type { FieldError } from '@workline/contracts';
import { DbPool, PrismaService, type Sql, type Statement, statement } from '@workline/db';
import { OutboxRelay } from '@workline/messaging';
import type { PoolClient } from 'pg';
import { ImportBatch } from './csv-import';
import type { PerformanceKind } from './record-rules';

export interface UploadRow {
  id: string;
  workstreamId: string;
  accountId: string;
  kind: string;
  fileName: string | null;
  state: string;
  blobKey: string | null;
  bytes: bigint | null;
  expiresAt: Date;
  rowsProcessed: number;
  rowsStored: number;
  rowsReplaced: number;
  rowsIgnored: number;
  rowsRejected: number;
  failure: string | null;
  createdAt: Date;
  receivedAt: Date | null;
  startedAt: Date | null;
  finishedAt: Date | null;
}

export type NewUpload = Pick<UploadRow, 'id' | 'workstreamId' | 'accountId' | 'kind' | 'fileName' | 'state' | 'expiresAt'>;

export interface UploadRejection {
  row: number;
  errors: FieldError[];
}

/** Another instance has taken the upload over (this one was thought to have stopped): it imports the rest. */
export class UploadClaimLost extends Error {
  constructor(uploadId: string) {
    super(`upload ${uploadId} was taken over by another instance`);
  }
}

/** What the sweep finds: an upload whose folder is to be deleted. */
export interface SweptUpload {
  id: string;
  state: string;
}

/** The connections an import writes its batches on, until released. */
export interface UploadImport {
  /**
   * One transaction: the batch's records, its rejections (while fewer than `rejectionsKept` are stored) and
   * the upload's progress. Throws UploadClaimLost, with nothing written, when `instanceId` no longer holds the upload.
   * Batches commit in call order; the next may be handed over while one is still committing. Once one has
   * failed, every later one is refused with its failure (what was committed stays a prefix of the file).
   */
  commit(uploadId: string, instanceId: string, batch: ImportBatch, rejectionsKept: number): Promise<void>;
  release(): void;
}

/** The performance_upload and performance_upload_rejection tables, and the connection an import writes its records on. */
@Injectable()
export class UploadsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DbPool,
    private readonly outbox: OutboxRelay,
  ) {}

  async insert(upload: NewUpload): Promise<UploadRow> {
    return this.prisma.performanceUpload.create({ data: upload });
  }

  async find(uploadId: string): Promise<UploadRow | null> {
    return this.prisma.performanceUpload.findUnique({ where: { id: uploadId } });
  }

  async findOfWorkstream(uploadId: string, workstreamId: string): Promise<UploadRow | null> {
    return this.prisma.performanceUpload.findFirst({ where: { id: uploadId, workstreamId } });
  }

  /** The first rejections of an upload, by row. */
  async rejections(uploadId: string, take: number): Promise<UploadRejection[]> {
    const rows = await this.prisma.performanceUploadRejection.findMany({ where: { uploadId }, orderBy: { row: 'asc' }, take });
    return rows.map((r) => ({ row: r.row, errors: r.errors as unknown as FieldError[] }));
  }

  /** Queues the upload with its file, if it still awaits one and has not expired; true when it did. */
  async markReceived(uploadId: string, file: { blobKey: string; bytes: number }): Promise<boolean> {
    const updated = await this.prisma.performanceUpload.updateMany({
      where: { id: uploadId, state: 'awaiting_upload', expiresAt: { gt: new Date() } },
      data: { state: 'queued', blobKey: file.blobKey, bytes: BigInt(file.bytes), receivedAt: new Date() },
    });
    return updated.count > 0;
  }

  /** Takes the oldest queued upload, or one whose instance has not reported for `staleAfterSeconds` (crashed). */
  async claim(instanceId: string, staleAfterSeconds: number): Promise<string | undefined> {
    const rows = await this.prisma.$queryRaw<{ id: string }[]>`
      update performance_upload set state = 'processing', claimed_by = ${instanceId}, heartbeat_at = now(),
        started_at = coalesce(started_at, now())
      where id = (
        select id from performance_upload
        where state = 'queued' or (state = 'processing' and heartbeat_at < now() - make_interval(secs => ${staleAfterSeconds}))
        order by received_at limit 1 for update skip locked)
      returning id`;
    return rows[0]?.id;
  }

  async get(uploadId: string): Promise<UploadRow> {
    return this.prisma.performanceUpload.findUniqueOrThrow({ where: { id: uploadId } });
  }

  /** Records the upload's end; true when `instanceId` still held it. */
  async finish(uploadId: string, instanceId: string, end: { state: 'completed' | 'failed'; failure?: string }): Promise<boolean> {
    const updated = await this.prisma.performanceUpload.updateMany({
      where: { id: uploadId, claimedBy: instanceId },
      data: { ...end, finishedAt: new Date() },
    });
    return updated.count === 1;
  }

  /** Forgets the file of an upload that was in `states` (its folder is deleted). */
  async forgetFile(uploadId: string, states: string[]): Promise<void> {
    await this.prisma.performanceUpload.updateMany({ where: { id: uploadId, state: { in: states } }, data: { blobKey: null } });
  }

  /** Uploads whose folder is to go, oldest first: finished ones that still have a file, unused ones whose URL expired before `cutoff`. */
  async sweepable(cutoff: Date, take: number): Promise<SweptUpload[]> {
    return this.prisma.performanceUpload.findMany({
      where: {
        OR: [
          { state: { in: ['completed', 'failed'] }, blobKey: { not: null } },
          { state: 'awaiting_upload', expiresAt: { lt: cutoff } },
        ],
      },
      select: { id: true, state: true },
      orderBy: { createdAt: 'asc' },
      take,
    });
  }

  /** An unused upload whose URL expired before `cutoff` becomes `expired` (not if a file came meanwhile). */
  async markExpired(uploadId: string, cutoff: Date): Promise<void> {
    await this.prisma.performanceUpload.updateMany({
      where: { id: uploadId, state: 'awaiting_upload', expiresAt: { lt: cutoff } },
      data: { state: 'expired' },
    });
  }

  async openImport(kind: PerformanceKind): Promise<UploadImport> {
    // Two connections take turns: a batch is copied into one's staging table while the batch before is
    // applied on the other, so PostgreSQL parses the next COPY while it upserts (docs/csv-formats.md).
    const first = await ImportConnection.open(this.db, kind);
    let second: ImportConnection;
    try {
      second = await ImportConnection.open(this.db, kind);
    } catch (error) {
      first.release();
      throw error;
    }
    const connections = [first, second];
    let turn = 0;
    let previous: Promise<void> = Promise.resolve();
    return {
      commit: async (uploadId, instanceId, batch, rejectionsKept) => {
        const connection = connections[turn++ % 2];
        const before = previous;
        const committed = connection.transaction(async (sql, client) => {
          await batch.stage(client, uploadId);
          // Applied in file order, each after the one before committed: the counters are the resume point,
          // and a batch after one that failed is rolled back with its error.
          await before;
          const [current] = await sql.query<{ rows_rejected: number }>(CLAIMED_UPLOAD, [uploadId, instanceId]);
          if (!current) throw new UploadClaimLost(uploadId);
          const counts = await batch.apply(sql, uploadId);
          const room = Math.max(0, rejectionsKept - current.rows_rejected);
          if (room && batch.rejections.length)
            await sql.query(INSERT_REJECTIONS, [uploadId, JSON.stringify(batch.rejections.slice(0, room))]);
          await sql.query(COUNT_PROGRESS, [uploadId, batch.size, counts.stored, counts.replaced, counts.ignored, counts.rejected]);
        });
        previous = committed;
        await committed;
        if (batch.mayCauseEvents) this.outbox.poke();
      },
      release: () => connections.forEach((connection) => connection.release()),
    };
  }
}

/** The upload, locked, if this instance still holds its claim. */
const CLAIMED_UPLOAD = statement(
  'performance_upload_claimed',
  'select rows_rejected from performance_upload where id = $1 and claimed_by = $2 for update',
);

const INSERT_REJECTIONS = statement(
  'performance_upload_rejections_insert',
  `insert into performance_upload_rejection (upload_id, "row", errors)
   select $1, x."row", x.errors from jsonb_to_recordset($2::jsonb) as x("row" int, errors jsonb)
   on conflict do nothing`,
);

const COUNT_PROGRESS = statement(
  'performance_upload_progress',
  `update performance_upload set rows_processed = rows_processed + $2, rows_stored = rows_stored + $3, rows_replaced = rows_replaced + $4,
     rows_ignored = rows_ignored + $5, rows_rejected = rows_rejected + $6, heartbeat_at = now()
   where id = $1`,
);

/**
 * The one pool connection an import writes on: COPY needs the connection itself (DbPool's transactions
 * hand out statements only), and the staging table is per connection, created once.
 */
class ImportConnection {
  private broken?: Error;
  private readonly onError = (error: Error) => (this.broken = error);

  private constructor(private readonly client: PoolClient) {
    // A connection that dies while held emits 'error': without a listener that would crash the process.
    client.on('error', this.onError);
  }

  private readonly sql: Sql = {
    query: async <R extends object>(s: Statement, values: unknown[] = []) =>
      (await this.client.query<R>({ name: s.name, text: s.text, values })).rows,
  };

  static async open(db: DbPool, kind: PerformanceKind): Promise<ImportConnection> {
    const connection = new ImportConnection(await db.pool.connect());
    try {
      await ImportBatch.prepare(connection.sql, kind);
    } catch (error) {
      connection.broken ??= error as Error;
      connection.release();
      throw error;
    }
    return connection;
  }

  /** The transaction last begun here, settled: a connection holds one transaction at a time. */
  private current: Promise<void> = Promise.resolve();

  transaction(work: (sql: Sql, client: PoolClient) => Promise<void>): Promise<void> {
    const done = this.current.then(() => this.run(work));
    this.current = done.catch(() => undefined);
    return done;
  }

  private async run(work: (sql: Sql, client: PoolClient) => Promise<void>): Promise<void> {
    await this.client.query('begin');
    try {
      await work(this.sql, this.client);
      await this.client.query('commit');
    } catch (error) {
      await this.client.query('rollback').catch((rollbackError: Error) => (this.broken = rollbackError));
      throw error;
    }
  }

  /** Back to the pool; a connection that failed is discarded instead. */
  release(): void {
    this.client.removeListener('error', this.onError);
    this.client.release(this.broken);
  }
}
