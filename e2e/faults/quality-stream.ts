import { dbQuery } from '@workline/testing';
import { pause, type FaultClient } from './client';
import { auditQcEvents, expectQcAsStored, QUALITY_FIELDS } from './fault-audit';
import { storedAgainstRules, type RecordValues } from './keyed-records';
import { KeyedSubmissions } from './keyed-submissions';

/** Every RESEND_EVERY-th submission of the stream writes a settled record again instead of a new one. */
const RESEND_EVERY = 6;

/** A workstream and a key of it. */
export interface WorkstreamKey {
  id: string;
  key: string;
}

/** A stored quality record's key: its unique_id, or, without one (a CSV row), its explanation (unique per write). */
export const qualityKeyOf = (row: Record<string, unknown>): string =>
  row.unique_id === null || row.unique_id === undefined ? `#${String(row.review_explanation)}` : String(row.unique_id);

/**
 * (a) Quality submissions (`task_reviewed`), one every ~100 ms, each with a unique_id (a retry replaces, never
 * adds), scoring 0 to 0.9 so that half go to QC. Every RESEND_EVERY-th submission writes a settled record
 * again with other values (another worker, a score on the other side of the QC threshold), alternately with
 * replace_duplicate true (and no task_id: a replace empties what it does not send) and false. Before the
 * faults, {@link seed} stores the records the CSV import collides with.
 */
export class QualityStream {
  readonly submissions: KeyedSubmissions;
  private running?: Promise<void>;
  /** Before the workstream's first write (its QC events are read from then on). */
  private readonly createdAt = Date.now() - 60_000;

  constructor(
    private readonly client: FaultClient,
    readonly workstream: WorkstreamKey,
    private readonly tag: string,
    private readonly state: { faultsDone: boolean },
  ) {
    this.submissions = new KeyedSubmissions(client, `/v1/workstreams/${workstream.id}/task_reviewed`, { workstream_id: workstream.id });
  }

  /** Use case and task definition of every record (the CSV import's too: they scope the unique_id). */
  static readonly useCase = { use_case_id: 'uc-f', task_definition_id: 'td-f' };

  private get headers() {
    return { 'x-api-key': this.workstream.key };
  }

  private values(uniqueId: string, i: number, explanation: string): RecordValues {
    return {
      ...QualityStream.useCase,
      unique_id: uniqueId,
      task_id: uniqueId,
      worker_id: `bot${i % 7}@example.com`,
      review_completed_at: new Date(Date.UTC(2026, 10, 1, 12, 0, i % 3600, i % 1000)).toISOString(),
      review_score: (i % 10) / 10,
      review_explanation: explanation,
    };
  }

  /** Stores `count` records before the faults (the CSV import writes over half of them and is ignored on the others); their keys. */
  async seed(count: number): Promise<string[]> {
    const keys = Array.from({ length: count }, (_, k) => `${this.tag}-seed${k}`);
    for (const [k, key] of keys.entries())
      if (!(await this.submissions.submit(key, this.values(key, k, `seed ${this.tag} ${k}`), this.headers, { rewritable: false })))
        throw new Error(`seed record ${key} not accepted: ${this.client.problems.at(-1)}`);
    return keys;
  }

  start(): void {
    this.running = (async () => {
      for (let i = 0; !this.state.faultsDone; i++) {
        const rewritten =
          i % RESEND_EVERY === RESEND_EVERY - 1 &&
          (await this.submissions.rewriteSettled(this.headers, (first, replace) => {
            const { task_id: _dropped, ...kept } = first;
            return {
              ...(replace ? kept : first),
              worker_id: `rewriter${i % 3}@example.com`,
              review_score: (Number(first.review_score) + 0.5) % 1,
              review_explanation: `${String(first.review_explanation)}, written again (replace_duplicate ${replace})`,
            };
          }));
        if (!rewritten) {
          const uniqueId = `${this.tag}-q${i}`;
          await this.submissions.submit(uniqueId, this.values(uniqueId, i, `fault run ${this.tag}, record ${i}`), this.headers);
        }
        await pause(100);
      }
    })();
  }

  finished(): Promise<void> {
    return this.running ?? Promise.resolve();
  }

  /**
   * Every record of the workstream (the stream's and the CSV import's, which share its records) stored
   * exactly once with the values the rules leave (the last write that replaced, every field), each 202's
   * message the rules' one, and the QC topic as the writes say (fault-audit.ts).
   */
  async audit(): Promise<Record<string, string | number>> {
    const rows = await dbQuery<Record<string, unknown>>(
      `select id, ${QUALITY_FIELDS.join(', ')}, upload_id from performance_quality_record where workstream_id = $1`,
      [this.workstream.id],
    );
    const { records } = this.submissions;
    const stored = storedAgainstRules(records, rows, {
      keyOf: qualityKeyOf,
      fields: QUALITY_FIELDS,
      asStored: (row) => ({ ...row, review_completed_at: (row.review_completed_at as Date).toISOString() }),
    });
    expect(stored.storedNotOnce).toEqual([]);
    expect(stored.unexplained).toEqual([]);
    expect(stored.mismatched).toEqual([]);
    expect(records.answersAgainstRules()).toEqual([]);
    const qc = await auditQcEvents(this.workstream.id, records, rows, qualityKeyOf, this.createdAt);
    expectQcAsStored(qc);
    const { rewritten } = this.submissions;
    expect(rewritten.replacing).toBeGreaterThan(0);
    expect(rewritten.ignored).toBeGreaterThan(0);
    const rewrites = `${rewritten.replacing} / ${rewritten.ignored}`;
    return {
      'quality writes sent / new records answered 202': `${this.submissions.sent} / ${this.submissions.accepted}`,
      'quality records written again: replace_duplicate true / false (stored as the rules say)': rewrites,
      'quality records needing client retries': this.submissions.retried,
      'quality rows stored (API and CSV; each once, every field as the rules leave it)': rows.length,
      'QC events (each write under the threshold: one, its outcome and values)': `${qc.writesToQc} writes, ${qc.messages} messages`,
      'QC replaced events of client retries (a retry replaced its own first attempt)': qc.retryEvents,
    };
  }
}
