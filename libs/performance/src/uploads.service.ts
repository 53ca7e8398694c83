import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { isConnectionLoss, PollWait, type PublicSurface } from '@workline/db';
import { type BlobStore, PeriodicSweep } from '@workline/blob-store';
import {
  DomainError,
  ErrorCode,
  errorMessage,
  type PerformanceUploadCheckOpenRequest,
  type PerformanceUploadCreateRequest,
  performanceUploadFolder,
  type PerformanceUploadGetRequest,
  type PerformanceUploadKind,
  type PerformanceUploadReceivedRequest,
  type PerformanceUploadState,
  type PerformanceUploadView,
} from '@workline/contracts';
import { parse } from 'csv-parse';
import { randomUUID } from 'node:crypto';
import { ImportBatch } from './csv-import';
import { CSV_PARSE_OPTIONS, type CsvColumn, csvColumns, recordLines } from './csv-rows';
import { EventLoopTurns } from './event-loop-turns';
import { signedUrlExpiry } from '@workline/secrets';
import type { PerformanceKind } from './record-rules';
import { UploadClaimLost, type UploadRow, UploadsRepository } from './uploads.repository';
import { WorkstreamsService } from './workstreams.service';

export const BLOB_STORE = Symbol('BLOB_STORE');
export const INSTANCE_ID = Symbol('INSTANCE_ID');
/** How often the upload file sweep runs, in seconds (UPLOAD_SWEEP_INTERVAL_SECONDS). */
export const UPLOAD_SWEEP_SECONDS = Symbol('UPLOAD_SWEEP_SECONDS');

export const UPLOAD_LIMITS = {
  /** Rows checked and committed per transaction (also how often progress becomes visible). */
  batchRows: 2000,
  /** Rejections kept per upload (the count goes on; the view says when the list is truncated). */
  rejectionsKept: 1000,
  /** Longest CSV record, in characters: a guard against a file without line ends. */
  maxRecordChars: 1_000_000,
  /** A processing upload whose instance has not reported for this long is taken over by another. */
  staleAfterSeconds: 120,
  pollMs: 2000,
  /** Longest stretch of row checking before the import lets RPC handling and heartbeats run. */
  cpuSliceMs: 2,
  /**
   * How long after an unused upload URL expired its folder is deleted: a PUT that began before the expiry
   * may still be streaming (it will be refused at the end), and its file must not vanish under it.
   */
  expiredFilesGraceSeconds: 3600,
  /** Uploads handled per sweep query (the sweep goes on until a query finds fewer). */
  sweepBatch: 100,
} as const;

/** Why an upload takes no file (any more); undefined while it still does. */
function closedUpload(row: { id: string; state: string; expiresAt: Date }): DomainError | undefined {
  const waiting = row.state === 'awaiting_upload' || row.state === 'expired';
  if (!waiting) return alreadyReceived(row.id);
  if (row.state === 'expired' || row.expiresAt.getTime() <= Date.now())
    return new DomainError(ErrorCode.Forbidden, 'Forbidden: this upload URL has expired');
  return undefined;
}

const alreadyReceived = (id: string) =>
  new DomainError(ErrorCode.Conflict, `upload ${id} has already been received; generate a new presigned URL for another file`);

class UploadFailed extends Error {}

/**
 * Bulk CSV uploads: created with a presigned URL (signed by the gateway), received when the gateway has
 * stored the bytes, then processed here, streaming, in batches that each commit their records and the
 * upload's progress together; a crash resumes after the last committed batch.
 */
@Injectable()
export class UploadsService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(UploadsService.name);
  private running = false;
  private loop?: Promise<void>;
  private readonly pollWait = new PollWait();
  private readonly sweeper: PeriodicSweep;

  constructor(
    @Inject(UploadsRepository) private readonly uploads: PublicSurface<UploadsRepository>,
    private readonly workstreams: WorkstreamsService,
    @Inject(BLOB_STORE) private readonly blobs: BlobStore,
    @Inject(INSTANCE_ID) private readonly instanceId: string,
    @Inject(UPLOAD_SWEEP_SECONDS) sweepSeconds: number,
  ) {
    this.sweeper = new PeriodicSweep(
      'upload file sweep',
      sweepSeconds * 1000,
      async () => (await this.sweep()) === UPLOAD_LIMITS.sweepBatch,
      (message) => this.logger.warn(message),
    );
  }

  async create(request: PerformanceUploadCreateRequest): Promise<PerformanceUploadView> {
    const workstream = await this.workstreams.authorize(request.caller, request.workstream_id);
    const row = await this.uploads.insert({
      id: `upl_${randomUUID().replace(/-/g, '')}`,
      workstreamId: workstream.id,
      accountId: workstream.account_id,
      kind: request.kind,
      fileName: request.file_name ?? null,
      state: 'awaiting_upload',
      expiresAt: signedUrlExpiry(request.expires_in_seconds),
    });
    return this.view(row);
  }

  /**
   * Asked before the gateway reads a PUT's body, so a used or expired upload URL costs no bytes on disk.
   * The view tells the gateway the upload's kind (its size limit). `received` checks again: two PUTs may race.
   */
  async checkOpen(request: PerformanceUploadCheckOpenRequest): Promise<PerformanceUploadView> {
    const row = await this.uploads.find(request.upload_id);
    if (!row) throw DomainError.notFound(`upload ${request.upload_id} not found`);
    const closed = closedUpload(row);
    if (closed) throw closed;
    return this.view(row);
  }

  /** The gateway stored the bytes under blob_key: queue the upload (once; a second PUT is 409). */
  async received(request: PerformanceUploadReceivedRequest): Promise<PerformanceUploadView> {
    const queued = await this.uploads.markReceived(request.upload_id, { blobKey: request.blob_key, bytes: request.bytes });
    const row = await this.uploads.find(request.upload_id);
    if (!row) throw DomainError.notFound(`upload ${request.upload_id} not found`);
    if (!queued) throw closedUpload(row) ?? alreadyReceived(row.id);
    this.pollWait.wake();
    return this.view(row);
  }

  async get(request: PerformanceUploadGetRequest): Promise<PerformanceUploadView> {
    const workstream = await this.workstreams.authorize(request.caller, request.workstream_id);
    const row = await this.uploads.findOfWorkstream(request.upload_id, workstream.id);
    if (!row) throw DomainError.notFound(`upload ${request.upload_id} not found`);
    return this.view(row);
  }

  private async view(row: UploadRow): Promise<PerformanceUploadView> {
    const rejections = row.rowsRejected ? await this.uploads.rejections(row.id, UPLOAD_LIMITS.rejectionsKept) : [];
    const state: PerformanceUploadState =
      row.state === 'awaiting_upload' && row.expiresAt.getTime() <= Date.now() ? 'expired' : (row.state as PerformanceUploadState);
    const iso = (date: Date | null) => date?.toISOString() ?? null;
    return {
      upload_id: row.id,
      workstream_id: row.workstreamId,
      kind: row.kind as PerformanceUploadKind,
      file_name: row.fileName,
      state,
      expires_at: row.expiresAt.toISOString(),
      created_at: row.createdAt.toISOString(),
      received_at: iso(row.receivedAt),
      started_at: iso(row.startedAt),
      finished_at: iso(row.finishedAt),
      bytes: row.bytes === null ? null : Number(row.bytes),
      rows_processed: row.rowsProcessed,
      rows_accepted: row.rowsStored + row.rowsReplaced + row.rowsIgnored,
      rows_stored: row.rowsStored,
      rows_replaced: row.rowsReplaced,
      rows_duplicates_ignored: row.rowsIgnored,
      rows_rejected: row.rowsRejected,
      rejections,
      rejections_truncated: row.rowsRejected > rejections.length,
      failure: row.failure,
    };
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
    this.sweeper.start();
  }

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    this.pollWait.wake();
    await Promise.all([this.loop, this.sweeper.stop()]);
  }

  private async run(): Promise<void> {
    // An upload whose import lost its database connection: this instance still holds it and goes on with it
    // (after a pause) before claiming anything else.
    let resuming: string | undefined;
    while (this.running) {
      let worked = false;
      let id: string | undefined;
      try {
        id = resuming ?? (await this.uploads.claim(this.instanceId, UPLOAD_LIMITS.staleAfterSeconds));
        resuming = undefined;
        if (id) {
          worked = true;
          if ((await this.process(id)) === 'resume') resuming = id;
        }
      } catch (error) {
        if (id && isConnectionLoss(error)) resuming = id;
        this.logger.warn(`upload processing failed, will retry: ${errorMessage(error)}`);
      }
      if ((worked && !resuming) || !this.running) continue;
      await this.pollWait.wait(UPLOAD_LIMITS.pollMs);
    }
  }

  /**
   * Imports the upload and records its end; 'resume' when the database connection was lost on the way: that
   * is not the file's fault, so the upload is not failed; the batches committed so far stand, and the import
   * goes on after them once the database answers again.
   */
  private async process(id: string): Promise<'ended' | 'resume'> {
    const upload = await this.uploads.get(id);
    let finished: boolean;
    try {
      await this.importRows(upload);
      finished = await this.finish(id, { state: 'completed' });
    } catch (error) {
      if (error instanceof UploadClaimLost) return 'ended';
      if (isConnectionLoss(error)) {
        this.logger.warn(
          `upload ${id}: the database connection was lost (${errorMessage(error)}); resuming after the last committed batch`,
        );
        return 'resume';
      }
      const failure = error instanceof UploadFailed ? error.message : `the file could not be read as CSV: ${errorMessage(error)}`;
      this.logger.warn(`upload ${id} failed: ${failure}`);
      finished = await this.finish(id, { state: 'failed', failure });
    }
    // A failed upload is final too (a new file needs a new URL): its file is of no more use either way.
    // Not when another instance has taken the upload over: it is reading the file.
    if (finished) await this.deleteFiles(id);
    return 'ended';
  }

  /** True when this instance still held the upload and recorded its end. */
  private async finish(id: string, data: { state: 'completed' | 'failed'; failure?: string }): Promise<boolean> {
    return this.uploads.finish(id, this.instanceId, data);
  }

  /**
   * Deletes every file of the upload (its folder: the file processed, and any a PUT left behind) and then
   * forgets the blob key. A failure here is logged and left to the sweep, which looks for exactly that.
   */
  private async deleteFiles(id: string): Promise<void> {
    try {
      await this.blobs.deleteFolder(performanceUploadFolder(id));
      await this.uploads.forgetFile(id, ['completed', 'failed']);
    } catch (error) {
      this.logger.warn(`files of upload ${id} not deleted yet, the sweep will retry: ${errorMessage(error)}`);
    }
  }

  /**
   * The periodic sweep (every UPLOAD_SWEEP_INTERVAL_SECONDS): files of finished uploads that were not
   * deleted when they finished (a crash, a storage error), and files of uploads whose URL expired without a
   * file being queued (a PUT whose gateway stopped before telling this service). Expired uploads become
   * `expired` once their folder is gone. Idempotent, so instances may sweep at the same time.
   * Returns the number of uploads swept.
   */
  async sweep(): Promise<number> {
    const cutoff = new Date(Date.now() - UPLOAD_LIMITS.expiredFilesGraceSeconds * 1000);
    const rows = await this.uploads.sweepable(cutoff, UPLOAD_LIMITS.sweepBatch);
    for (const row of rows) {
      await this.blobs.deleteFolder(performanceUploadFolder(row.id));
      if (row.state === 'awaiting_upload') await this.uploads.markExpired(row.id, cutoff);
      else await this.uploads.forgetFile(row.id, [row.state]);
    }
    return rows.length;
  }

  /**
   * Streams the file through the parser and checks rows while earlier batches are being written: batches
   * commit one after the other (in file order, each in its own transaction with the upload's counters),
   * the next is copied to PostgreSQL meanwhile and one more is being filled, so memory stays flat whatever
   * the file's size.
   */
  private async importRows(upload: UploadRow): Promise<void> {
    const kind = upload.kind as PerformanceKind;
    const workstream = await this.workstreams.config(upload.workstreamId);
    // Before the file is opened: nothing may be awaited between the stream's creation and its first read,
    // or a read or parse error would be emitted with no listener (and end the process).
    const connection = await this.uploads.openImport(kind);
    let blob: Awaited<ReturnType<BlobStore['get']>>;
    try {
      blob = upload.blobKey ? await this.blobs.get(upload.blobKey) : undefined;
      if (!blob) throw new UploadFailed('the uploaded file is missing');
    } catch (error) {
      connection.release();
      throw error;
    }
    const parser = blob.stream.pipe(parse({ ...CSV_PARSE_OPTIONS, max_record_size: UPLOAD_LIMITS.maxRecordChars }));
    const lineOfNextRecord = recordLines(parser);
    blob.stream.on('error', (error) => parser.destroy(error));
    let columns: CsvColumn[] | undefined;
    let records = 0;
    let batch = new ImportBatch(kind, workstream);
    // Commits handed over and not yet awaited, oldest first: at most two (one being applied, the next
    // being copied beside it), so at most three batches are in memory whatever the file's size.
    const writing: Promise<void>[] = [];
    const turns = new EventLoopTurns(UPLOAD_LIMITS.cpuSliceMs);
    const write = async (full: ImportBatch) => {
      if (writing.length === 2) await writing.shift();
      const commit = connection.commit(upload.id, this.instanceId, full, UPLOAD_LIMITS.rejectionsKept);
      // Awaited later; a failure meanwhile must not count as unhandled.
      commit.catch(() => undefined);
      writing.push(commit);
    };
    try {
      for await (const first of parser as AsyncIterable<string[]>) {
        // The records the parser holds already are read here, as its iterator would but without a promise
        // each; a destroyed parser (it failed) hands out nothing more, as with the iterator.
        for (let cells: string[] | null = first; cells !== null; cells = parser.destroyed ? null : (parser.read() as string[] | null)) {
          const line = lineOfNextRecord();
          if (!columns) {
            const header = csvColumns(kind, cells);
            if ('error' in header) throw new UploadFailed(header.error);
            columns = header.columns;
            continue;
          }
          records++;
          const turn = turns.take();
          if (turn) await turn;
          if (records <= upload.rowsProcessed) continue;
          batch.add(line, columns, cells);
          if (batch.size >= UPLOAD_LIMITS.batchRows) {
            await write(batch);
            batch = new ImportBatch(kind, workstream);
          }
        }
      }
      if (!columns) throw new UploadFailed('the file is empty: a CSV upload starts with a header row of field names');
      await write(batch);
      for (const commit of writing) await commit;
    } finally {
      blob.stream.destroy();
      // The connections go back only once no statement of theirs is running.
      await Promise.allSettled(writing);
      connection.release();
    }
  }
}
