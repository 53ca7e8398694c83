import type { PublicSurface } from '@workline/db';
import type { BlobStore } from '@workline/blob-store';
import { ErrorCode, type PerformanceUploadKind } from '@workline/contracts';
import { Readable } from 'node:stream';
import type { ImportBatch } from './csv-import';
import {
  type NewUpload,
  type SweptUpload,
  UploadClaimLost,
  type UploadImport,
  type UploadRejection,
  type UploadRow,
  type UploadsRepository,
} from './uploads.repository';
import { UPLOAD_LIMITS, UploadsService } from './uploads.service';
import { workstreamsWithOne } from './testing/workstreams';

/** The upload tables in memory; an import's commit counts every accepted row as stored. */
class InMemoryUploadsRepository implements PublicSurface<UploadsRepository> {
  readonly rows = new Map<string, UploadRow & { claimedBy: string | null }>();
  readonly stored = new Map<string, { rejections: UploadRejection[] }>();
  readonly commits: { uploadId: string; rows: number; rejectedRows: number[] }[] = [];
  /** The instance that takes over an upload between two batches, as if this one had been thought dead. */
  takeOverAfterCommits = Infinity;
  /** Commits (counted from 0) whose database connection is lost before they apply anything, once each. */
  readonly connectionLostAtCommit = new Set<number>();
  private commitsTried = 0;
  releases = 0;
  private idled?: () => void;
  /** Resolves when the processing loop finds nothing more to claim. */
  readonly idle = new Promise<void>((resolve) => (this.idled = resolve));

  async insert(upload: NewUpload): Promise<UploadRow> {
    const row = {
      ...upload,
      blobKey: null,
      bytes: null,
      rowsProcessed: 0,
      rowsStored: 0,
      rowsReplaced: 0,
      rowsIgnored: 0,
      rowsRejected: 0,
      failure: null,
      createdAt: new Date(),
      receivedAt: null,
      startedAt: null,
      finishedAt: null,
      claimedBy: null,
    };
    this.rows.set(row.id, row);
    this.stored.set(row.id, { rejections: [] });
    return { ...row };
  }

  async find(uploadId: string): Promise<UploadRow | null> {
    const row = this.rows.get(uploadId);
    return row ? { ...row } : null;
  }

  async findOfWorkstream(uploadId: string, workstreamId: string): Promise<UploadRow | null> {
    const row = await this.find(uploadId);
    return row?.workstreamId === workstreamId ? row : null;
  }

  async rejections(uploadId: string, take: number): Promise<UploadRejection[]> {
    return this.stored.get(uploadId)!.rejections.slice(0, take);
  }

  async markReceived(uploadId: string, file: { blobKey: string; bytes: number }): Promise<boolean> {
    const row = this.rows.get(uploadId);
    if (row?.state !== 'awaiting_upload' || row.expiresAt.getTime() <= Date.now()) return false;
    Object.assign(row, { state: 'queued', blobKey: file.blobKey, bytes: BigInt(file.bytes), receivedAt: new Date() });
    return true;
  }

  async claim(instanceId: string): Promise<string | undefined> {
    const row = [...this.rows.values()].find((r) => r.state === 'queued');
    if (!row) {
      this.idled!();
      return undefined;
    }
    Object.assign(row, { state: 'processing', claimedBy: instanceId, startedAt: row.startedAt ?? new Date() });
    return row.id;
  }

  async get(uploadId: string): Promise<UploadRow> {
    return { ...this.rows.get(uploadId)! };
  }

  async finish(uploadId: string, instanceId: string, end: { state: 'completed' | 'failed'; failure?: string }): Promise<boolean> {
    const row = this.rows.get(uploadId)!;
    const held = row.claimedBy === instanceId;
    if (held) Object.assign(row, { state: end.state, failure: end.failure ?? null, finishedAt: new Date() });
    return held;
  }

  async forgetFile(uploadId: string, states: string[]): Promise<void> {
    const row = this.rows.get(uploadId)!;
    if (states.includes(row.state)) row.blobKey = null;
  }

  async sweepable(cutoff: Date, take: number): Promise<SweptUpload[]> {
    return [...this.rows.values()]
      .filter((r) => (['completed', 'failed'].includes(r.state) && r.blobKey) || (r.state === 'awaiting_upload' && r.expiresAt < cutoff))
      .slice(0, take)
      .map((r) => ({ id: r.id, state: r.state }));
  }

  async markExpired(uploadId: string, cutoff: Date): Promise<void> {
    const row = this.rows.get(uploadId)!;
    if (row.state === 'awaiting_upload' && row.expiresAt < cutoff) row.state = 'expired';
  }

  async openImport(): Promise<UploadImport> {
    // As the repository's: a batch after one that failed is refused with that batch's error.
    let failed: Error | undefined;
    return {
      commit: async (uploadId: string, instanceId: string, batch: ImportBatch, rejectionsKept: number) => {
        const row = this.rows.get(uploadId)!;
        if (failed) throw failed;
        if (this.connectionLostAtCommit.delete(this.commitsTried++))
          throw (failed = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }));
        if (this.commits.length >= this.takeOverAfterCommits) row.claimedBy = 'another-instance';
        if (row.claimedBy !== instanceId) throw new UploadClaimLost(uploadId);
        this.commits.push({ uploadId, rows: batch.size, rejectedRows: batch.rejections.map((r) => r.row) });
        const kept = this.stored.get(uploadId)!.rejections;
        kept.push(...batch.rejections.slice(0, Math.max(0, rejectionsKept - row.rowsRejected)));
        row.rowsProcessed += batch.size;
        row.rowsStored += batch.size - batch.rejections.length;
        row.rowsRejected += batch.rejections.length;
      },
      release: () => void this.releases++,
    };
  }
}

/** Files by key; deleting a folder deletes every file under it. */
class InMemoryBlobs implements Pick<BlobStore, 'get' | 'deleteFolder'> {
  readonly files = new Map<string, string>();

  async get(key: string) {
    const text = this.files.get(key);
    return text === undefined ? undefined : { meta: { size: text.length, contentType: 'text/csv' }, stream: Readable.from([text]) };
  }

  async deleteFolder(folder: string): Promise<void> {
    for (const key of [...this.files.keys()]) if (key.startsWith(folder)) this.files.delete(key);
  }
}

const caller = { account_id: 'acc-1', workstream_id: null };

async function setup() {
  const { workstreams, workstreamId } = await workstreamsWithOne();
  const repository = new InMemoryUploadsRepository();
  const blobs = new InMemoryBlobs();
  const uploads = new UploadsService(repository, workstreams, blobs as unknown as BlobStore, 'instance-1', 3600);
  const create = (kind: PerformanceUploadKind = 'throughput', expiresInSeconds = 600) =>
    uploads.create({ caller, workstream_id: workstreamId, kind, file_name: 'rows.csv', expires_in_seconds: expiresInSeconds });
  return { repository, blobs, uploads, workstreamId, create };
}

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000);

describe('UploadsService', () => {
  it('creates an upload awaiting its file, expiring when asked', async () => {
    const { create, workstreamId } = await setup();
    const before = Date.now();
    const view = await create('quality', 900);
    expect(view).toMatchObject({
      upload_id: expect.stringMatching(/^upl_[0-9a-f]{32}$/),
      workstream_id: workstreamId,
      kind: 'quality',
      file_name: 'rows.csv',
      state: 'awaiting_upload',
      received_at: null,
      bytes: null,
      rows_processed: 0,
      rows_accepted: 0,
      rejections: [],
      rejections_truncated: false,
      failure: null,
    });
    // On a whole second (the URL's expires parameter has no more), so up to a second less than asked.
    expect(new Date(view.expires_at).getMilliseconds()).toBe(0);
    const expiresIn = new Date(view.expires_at).getTime() - before;
    expect(expiresIn).toBeGreaterThan(899_000);
    expect(expiresIn).toBeLessThanOrEqual(900_000);
  });

  it("refuses an upload for another account's workstream", async () => {
    const { uploads, workstreamId } = await setup();
    await expect(
      uploads.create({
        caller: { account_id: 'acc-2', workstream_id: null },
        workstream_id: workstreamId,
        kind: 'quality',
        expires_in_seconds: 60,
      }),
    ).rejects.toMatchObject({ code: ErrorCode.Forbidden });
  });

  describe('taking a file', () => {
    it('is open while awaiting its file; then queues it once: a second file is 409', async () => {
      const { uploads, create } = await setup();
      const { upload_id } = await create();
      await expect(uploads.checkOpen({ upload_id })).resolves.toMatchObject({ upload_id, state: 'awaiting_upload', kind: 'throughput' });
      const received = await uploads.received({ upload_id, blob_key: `performance-uploads/${upload_id}/a.csv`, bytes: 123 });
      expect(received).toMatchObject({ state: 'queued', bytes: 123, received_at: expect.any(String) });
      const conflict = {
        code: ErrorCode.Conflict,
        message: `upload ${upload_id} has already been received; generate a new presigned URL for another file`,
      };
      await expect(uploads.checkOpen({ upload_id })).rejects.toMatchObject(conflict);
      await expect(uploads.received({ upload_id, blob_key: `performance-uploads/${upload_id}/b.csv`, bytes: 1 })).rejects.toMatchObject(
        conflict,
      );
    });

    it('refuses a file once the URL expired (403), and an unknown upload (404)', async () => {
      const { repository, uploads, create } = await setup();
      const { upload_id } = await create();
      repository.rows.get(upload_id)!.expiresAt = minutesFromNow(-1);
      const expired = { code: ErrorCode.Forbidden, message: 'Forbidden: this upload URL has expired' };
      await expect(uploads.checkOpen({ upload_id })).rejects.toMatchObject(expired);
      await expect(uploads.received({ upload_id, blob_key: 'k', bytes: 1 })).rejects.toMatchObject(expired);
      await expect(uploads.get({ caller, workstream_id: repository.rows.get(upload_id)!.workstreamId, upload_id })).resolves.toMatchObject({
        state: 'expired',
      });
      const unknown = { code: ErrorCode.NotFound, message: 'upload upl_nope not found' };
      await expect(uploads.checkOpen({ upload_id: 'upl_nope' })).rejects.toMatchObject(unknown);
      await expect(uploads.received({ upload_id: 'upl_nope', blob_key: 'k', bytes: 1 })).rejects.toMatchObject(unknown);
    });
  });

  it('shows an upload only under its own workstream', async () => {
    const { repository, uploads, create, workstreamId } = await setup();
    const { upload_id } = await create();
    repository.rows.get(upload_id)!.workstreamId = 'another-workstream';
    await expect(uploads.get({ caller, workstream_id: workstreamId, upload_id })).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: `upload ${upload_id} not found`,
    });
  });

  describe('processing', () => {
    async function processed(
      csv: string | undefined,
      arrange: (repository: InMemoryUploadsRepository, uploadId: string) => void = () => {},
    ) {
      const context = await setup();
      const { repository, blobs, uploads, create, workstreamId } = context;
      const { upload_id } = await create();
      const blobKey = `performance-uploads/${upload_id}/rows.csv`;
      if (csv !== undefined) blobs.files.set(blobKey, csv);
      await uploads.received({ upload_id, blob_key: blobKey, bytes: csv?.length ?? 0 });
      arrange(repository, upload_id);
      uploads.onApplicationBootstrap();
      await repository.idle;
      await uploads.onApplicationShutdown();
      return { ...context, view: await uploads.get({ caller, workstream_id: workstreamId, upload_id }), blobKey };
    }

    it('imports the rows, keeps each refusal with its line number, completes, and deletes the file', async () => {
      const csv = 'worker_id,task_completed_at\nw-1,2026-05-01T10:00:00Z\nw-2,yesterday\nw-3,2026-05-01T11:00:00Z,extra\n';
      const { view, repository, blobs } = await processed(csv);
      expect(view).toMatchObject({
        state: 'completed',
        started_at: expect.any(String),
        finished_at: expect.any(String),
        rows_processed: 3,
        rows_accepted: 1,
        rows_stored: 1,
        rows_rejected: 2,
        rejections: [
          { row: 3, errors: [{ field: 'task_completed_at', message: expect.any(String) }] },
          { row: 4, errors: [{ field: '(row)', message: 'the row has 3 fields, the header has 2' }] },
        ],
        rejections_truncated: false,
        failure: null,
      });
      expect(repository.commits).toEqual([{ uploadId: view.upload_id, rows: 3, rejectedRows: [3, 4] }]);
      expect(blobs.files.size).toBe(0);
      expect(repository.rows.get(view.upload_id)!.blobKey).toBeNull();
      expect(repository.releases).toBe(1);
    });

    it('resumes after the rows a crashed instance committed', async () => {
      const csv = 'worker_id,task_completed_at\nw-1,2026-05-01T10:00:00Z\nw-2,2026-05-01T11:00:00Z\nw-3,bad\n';
      const { view, repository } = await processed(csv, (rows, id) =>
        Object.assign(rows.rows.get(id)!, { rowsProcessed: 1, rowsStored: 1 }),
      );
      expect(repository.commits).toEqual([{ uploadId: view.upload_id, rows: 2, rejectedRows: [4] }]);
      expect(view).toMatchObject({ state: 'completed', rows_processed: 3, rows_stored: 2, rows_rejected: 1 });
    });

    it('commits in batches of batchRows', async () => {
      const rows = Array.from({ length: UPLOAD_LIMITS.batchRows + 1 }, (_, i) => `w-${i},2026-05-01T10:00:00Z`);
      const { view, repository } = await processed(`worker_id,task_completed_at\n${rows.join('\n')}\n`);
      expect(repository.commits.map((c) => c.rows)).toEqual([UPLOAD_LIMITS.batchRows, 1]);
      expect(view).toMatchObject({ state: 'completed', rows_stored: UPLOAD_LIMITS.batchRows + 1 });
    });

    it.each([
      ['a missing file', undefined, 'the uploaded file is missing'],
      ['an empty file', '', 'the file is empty: a CSV upload starts with a header row of field names'],
      ['an unknown column', 'worker_id,colour\n', expect.stringMatching(/^unknown CSV column\(s\): colour /)],
      ['a line that is not CSV', 'worker_id,task_completed_at\n"w-1,2026\n', expect.stringMatching(/^the file could not be read as CSV: /)],
    ])('fails an upload with %s, saying why, and deletes its files', async (_what, csv, failure) => {
      const { view, blobs } = await processed(csv);
      expect(view).toMatchObject({ state: 'failed', failure, rows_processed: 0 });
      expect(blobs.files.size).toBe(0);
    });

    it('goes on after the last committed batch when the database connection is lost, instead of failing the file', async () => {
      const rows = Array.from({ length: 2 * UPLOAD_LIMITS.batchRows + 1 }, (_, i) => `w-${i},2026-05-01T10:00:00Z`);
      const csv = `worker_id,task_completed_at\n${rows.join('\n')}\n`;
      const { view, repository, blobs } = await processed(csv, (repository) => repository.connectionLostAtCommit.add(1));
      expect(repository.commits.map((c) => c.rows)).toEqual([UPLOAD_LIMITS.batchRows, UPLOAD_LIMITS.batchRows, 1]);
      expect(view).toMatchObject({ state: 'completed', failure: null, rows_processed: rows.length, rows_stored: rows.length });
      expect(blobs.files.size).toBe(0);
      // The import that lost its connection gave its connections back too.
      expect(repository.releases).toBe(2);
    });

    it('leaves the upload and its file to the instance that took it over', async () => {
      const rows = Array.from({ length: UPLOAD_LIMITS.batchRows + 1 }, (_, i) => `w-${i},2026-05-01T10:00:00Z`);
      const csv = `worker_id,task_completed_at\n${rows.join('\n')}\n`;
      const { view, blobs, blobKey } = await processed(csv, (repository) => (repository.takeOverAfterCommits = 1));
      expect(view).toMatchObject({ state: 'processing', rows_processed: UPLOAD_LIMITS.batchRows, finished_at: null });
      expect([...blobs.files.keys()]).toEqual([blobKey]);
    });
  });

  it('sweeps files of finished uploads and expires unused uploads after the grace period', async () => {
    const { repository, blobs, uploads, create } = await setup();
    const done = await create();
    const unused = await create();
    const recent = await create();
    const folder = (id: string) => `performance-uploads/${id}/`;
    Object.assign(repository.rows.get(done.upload_id)!, { state: 'completed', blobKey: `${folder(done.upload_id)}f.csv` });
    repository.rows.get(unused.upload_id)!.expiresAt = new Date(Date.now() - UPLOAD_LIMITS.expiredFilesGraceSeconds * 1000 - 1000);
    repository.rows.get(recent.upload_id)!.expiresAt = minutesFromNow(-1);
    for (const id of [done.upload_id, unused.upload_id, recent.upload_id]) blobs.files.set(`${folder(id)}f.csv`, 'x');
    expect(await uploads.sweep()).toBe(2);
    expect([...blobs.files.keys()]).toEqual([`${folder(recent.upload_id)}f.csv`]);
    expect([done, unused, recent].map((u) => [repository.rows.get(u.upload_id)!.state, repository.rows.get(u.upload_id)!.blobKey])).toEqual(
      [
        ['completed', null],
        ['expired', null],
        ['awaiting_upload', null],
      ],
    );
    expect(await uploads.sweep()).toBe(0);
  });
});
