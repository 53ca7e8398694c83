import { dbQuery, eventually } from '@workline/testing';
import type { FaultClient } from './client';
import type { KeyedRecords, RecordValues } from './keyed-records';
import { QualityStream, type WorkstreamKey } from './quality-stream';

const HEADER =
  'use_case_id,task_definition_id,unique_id,replace_duplicate,task_id,worker_id,review_completed_at,review_score,review_explanation';
/** A data row's place in the file pattern (docs/csv-formats.md): each category is counted by its own counter. */
const REJECTED_EVERY = 997;
const WITHOUT_ID_EVERY = 50;
/** Row REPEAT_AFTER of every REPEAT_EVERY repeats the unique_id of the first row of its stretch (a collision inside the file). */
const REPEAT_EVERY = 400;
const REPEAT_AFTER = 137;

/** The upload's row as the performance service keeps it (its progress is committed with each 2,000-row batch). */
export interface UploadProgress extends Record<string, unknown> {
  state: string;
  rows_processed: number;
  claimed_by: string | null;
}

interface CsvRow {
  /** The record key the row writes (its unique_id, or `#<explanation>` without one); undefined for a rejected row. */
  key?: string;
  replace?: boolean;
  values: RecordValues;
  cells: string;
}

/**
 * (e) A bulk CSV import of quality rows into the quality stream's workstream, through the presigned URL,
 * started by the performance fault itself: the file is PUT, and once the import has committed its first
 * batch, the instance holding it is SIGKILLed (the scenario reads where it stood: some rows committed, not
 * all); 120 s later another instance takes the upload over and resumes after the last committed batch, under
 * the faults that follow. Its rows: the first `seeds.length` write over the records the stream stored before
 * the faults (replace_duplicate true on every other one, false on the rest), every 400th repeats a row of the
 * file, every 50th has no unique_id (stored twice if a batch were read twice), every 997th is refused (score
 * 2), the others are new; half score under the QC threshold. The counters must be exactly those of the rules
 * applied row after row, and the rows join the quality stream's writes (audited with them: each record as the
 * rules leave it, each QC event once).
 */
export class QualityCsvImport {
  uploadId?: string;
  putAttempts = 0;
  status?: Record<string, unknown>;
  /** Where the import stood when its instance was killed. */
  atKill?: UploadProgress;
  private running?: Promise<void>;
  private readonly expected = { stored: 0, replaced: 0, ignored: 0, rejected: 0 };

  constructor(
    private readonly client: FaultClient,
    private readonly workstream: WorkstreamKey,
    private readonly tag: string,
    private readonly records: KeyedRecords,
    private readonly seeds: string[],
    readonly rows: number,
  ) {}

  private row(r: number): CsvRow {
    const explanation = `csv ${this.tag} row ${r}`;
    const score = ((r * 7919) % 1000) / 1000;
    const values = {
      ...QualityStream.useCase,
      task_id: `csv-task-${r}`,
      worker_id: `csv${r % 9}@example.com`,
      review_completed_at: new Date(Date.UTC(2026, 10, 3, 0, 0, 0) + r * 1000 + (r % 1000)).toISOString(),
      review_score: score,
      review_explanation: explanation,
    };
    const line = (uniqueId: string, replace: string, v: RecordValues) =>
      [
        v.use_case_id,
        v.task_definition_id,
        uniqueId,
        replace,
        v.task_id ?? '',
        v.worker_id,
        v.review_completed_at,
        v.review_score,
        explanation,
      ].join(',');
    if (r % REJECTED_EVERY === REJECTED_EVERY - 1)
      return { values, cells: line(`${this.tag}-csv${r}`, '', { ...values, review_score: 2 }) };
    if (r < this.seeds.length) {
      // Over a record the stream stored: replacing ones send no task_id (a replace empties it).
      const replace = r % 2 === 0;
      const { task_id: _dropped, ...withoutTask } = values;
      const written = { ...(replace ? withoutTask : values), unique_id: this.seeds[r] };
      return { key: this.seeds[r], replace, values: written, cells: line(this.seeds[r], String(replace), written) };
    }
    if (r % WITHOUT_ID_EVERY === WITHOUT_ID_EVERY - 1) return { key: `#${explanation}`, values, cells: line('', '', values) };
    const repeated = r % REPEAT_EVERY === REPEAT_AFTER ? r - REPEAT_AFTER : undefined;
    if (repeated !== undefined && repeated >= this.seeds.length && this.row(repeated).key === `${this.tag}-csv${repeated}`) {
      const replace = Math.floor(r / REPEAT_EVERY) % 2 === 0;
      const uniqueId = `${this.tag}-csv${repeated}`;
      return { key: uniqueId, replace, values: { ...values, unique_id: uniqueId }, cells: line(uniqueId, String(replace), values) };
    }
    const uniqueId = `${this.tag}-csv${r}`;
    return { key: uniqueId, values: { ...values, unique_id: uniqueId }, cells: line(uniqueId, '', values) };
  }

  private file(): string {
    return [HEADER, ...Array.from({ length: this.rows }, (_, r) => this.row(r).cells)].join('\n') + '\n';
  }

  /** The upload's row (a table read: its claim is not in the API). */
  async progress(): Promise<UploadProgress> {
    const [row] = await dbQuery<UploadProgress>('select state, rows_processed, claimed_by from performance_upload where id = $1', [
      this.uploadId,
    ]);
    return row;
  }

  /**
   * Presigns, PUTs the file (200, or on a retry 409 "already been received": an earlier attempt stored it),
   * records its rows among the workstream's writes, and resolves once the import has committed its first
   * batch, with the upload's progress (its claim says which instance imports it). Then polls the upload's
   * status through the API, as a client does, until it ends ({@link finished}).
   */
  async startAndAwaitFirstBatch(): Promise<UploadProgress> {
    const headers = { 'x-api-key': this.workstream.key };
    const grant = await this.client.send<{ upload_url: string; upload_id: string }>(
      'POST',
      `/v1/workstreams/${this.workstream.id}/performance/generate-presigned-url`,
      headers,
      { kind: 'quality', file_name: 'faults.csv' },
    );
    if (grant.result?.status !== 201) throw new Error(`generate-presigned-url answered ${grant.result?.status}: ${grant.result?.text}`);
    this.uploadId = grant.result.body.upload_id;
    const put = await this.client.put(grant.result.body.upload_url, 'text/csv', this.file(), 60_000);
    this.putAttempts = put.attempts;
    const stored =
      put.result?.status === 200 || (put.result?.status === 409 && put.attempts > 1 && /already been received/.test(put.result.text));
    if (!stored) throw new Error(`the CSV upload's PUT answered ${put.result?.status}: ${put.result?.text}`);
    this.recordRows();
    const first = await eventually(
      async () => {
        const now = await this.progress();
        if (now.state === 'completed' || now.state === 'failed')
          throw new Error(`the import ended (${now.state}) before a fault could hit it`);
        return now.rows_processed > 0 ? now : undefined;
      },
      { what: 'the CSV import to commit its first batch', timeoutMs: 120_000, intervalMs: 20 },
    );
    this.running = this.poll(headers);
    return first;
  }

  /** The file's rows as writes of the workstream's records, in file order after the seeds, counted by what the rules make of them. */
  private recordRows(): void {
    for (let r = 0; r < this.rows; r++) {
      const row = this.row(r);
      if (!row.key) {
        this.expected.rejected++;
        continue;
      }
      const effect = !this.records.has(row.key) ? 'stored' : row.replace !== false ? 'replaced' : 'ignored';
      this.expected[effect]++;
      this.records.record(row.key, { values: row.values, replace: row.replace ?? true, attempts: 1, uploadId: this.uploadId! });
    }
  }

  private async poll(headers: Record<string, string>): Promise<void> {
    this.status = await eventually(
      async () => {
        const { result } = await this.client.send<Record<string, unknown>>(
          'GET',
          `/v1/workstreams/${this.workstream.id}/performance/uploads/${this.uploadId}`,
          headers,
        );
        if (result?.status !== 200) {
          this.client.unexpected('CSV upload status', result);
          return undefined;
        }
        return result.body.state === 'completed' || result.body.state === 'failed' ? result.body : undefined;
      },
      { what: 'the CSV import to end', timeoutMs: 480_000, intervalMs: 1000 },
    );
  }

  finished(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /** Completed, its counters those of the rules applied row after row, and it spanned the kill (its rows are audited with the stream's). */
  audit(): Record<string, string | number> {
    const { stored, replaced, ignored, rejected } = this.expected;
    expect(this.status).toMatchObject({
      state: 'completed',
      failure: null,
      rows_processed: this.rows,
      rows_accepted: stored + replaced + ignored,
      rows_stored: stored,
      rows_replaced: replaced,
      rows_duplicates_ignored: ignored,
      rows_rejected: rejected,
    });
    expect(this.atKill?.state).toBe('processing');
    expect(this.atKill?.rows_processed).toBeGreaterThan(0);
    expect(this.atKill?.rows_processed).toBeLessThan(this.rows);
    return {
      'CSV import (quality): rows committed when its instance was SIGKILLed': `${this.atKill?.rows_processed} of ${this.rows}`,
      'CSV import rows stored / replaced / ignored / rejected (counters exact)': `${stored} / ${replaced} / ${ignored} / ${rejected}`,
      'CSV upload PUT attempts': this.putAttempts,
    };
  }
}
