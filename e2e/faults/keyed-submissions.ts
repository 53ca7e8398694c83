import type { FaultClient, Route } from './client';
import { KeyedRecords, type RecordValues } from './keyed-records';

/** Every RESEND_STRIDE-th record whose first write is settled is written again (see {@link KeyedSubmissions.nextToResend}). */
const RESEND_STRIDE = 3;

/**
 * A stream's keyed record submissions (`task_reviewed`, `task_completed`, each with a unique_id): sent like a
 * client sends them, each accepted write kept in {@link records} with its attempts and its 202 message; and
 * the records that may be written again under the dedupe rules without racing a redelivery.
 */
export class KeyedSubmissions {
  readonly records = new KeyedRecords();
  sent = 0;
  /** Writes whose client needed more than one attempt. */
  retried = 0;
  /** Writes again of an accepted record: with replace_duplicate true, and with false. */
  readonly rewritten = { replacing: 0, ignored: 0 };
  private readonly firstAnswered: { key: string; at: number }[] = [];
  private settledBefore = 0;
  private cursor = 0;
  private rewrites = 0;

  constructor(
    private readonly client: FaultClient,
    private readonly endpoint: string,
    /** What every body carries besides the record (e.g. the workstream_id a quality record must name). */
    private readonly bodyExtra: Record<string, unknown> = {},
  ) {}

  /** Records accepted for the first time: the stream's progress. */
  get accepted(): number {
    return this.firstAnswered.length;
  }

  /**
   * One write of `values` under unique_id `key`; true when it was answered 202 (then it is kept in
   * {@link records}). `rewritable: false` keeps a new record out of {@link nextToResend} (others write over it).
   */
  async submit(
    key: string,
    values: RecordValues,
    headers: Record<string, string>,
    { replace, route, rewritable = true }: { replace?: boolean; route?: Route; rewritable?: boolean } = {},
  ): Promise<boolean> {
    this.sent++;
    const body = { ...this.bodyExtra, ...values, ...(replace === undefined ? {} : { replace_duplicate: replace }) };
    const { result, attempts } = await this.client.send<{ message: string }>('POST', this.endpoint, headers, body, route);
    if (attempts > 1) this.retried++;
    if (result?.status !== 202) {
      this.client.unexpected(`${this.endpoint.split('/').at(-1)} ${key}`, result);
      return false;
    }
    const first = !this.records.has(key);
    this.records.record(key, { values, replace: replace ?? true, attempts, uploadId: null, answer: result.body.message });
    if (first && rewritable) this.firstAnswered.push({ key, at: Date.now() });
    if (!first) this.rewritten[replace === false ? 'ignored' : 'replacing']++;
    return true;
  }

  /** The scenario lived through a fault that began at `faultStartedAt`: records answered before it are settled. */
  settle(faultStartedAt: number): void {
    this.settledBefore = Math.max(this.settledBefore, faultStartedAt);
  }

  /**
   * Writes a settled record again (see {@link nextToResend}) with the values `rewrite` makes of its first
   * write's, alternately with replace_duplicate true and false; false when no record is settled yet.
   */
  async rewriteSettled(
    headers: Record<string, string>,
    rewrite: (first: RecordValues, replace: boolean) => RecordValues,
  ): Promise<boolean> {
    const key = this.nextToResend();
    const first = key === undefined ? undefined : this.records.first(key);
    if (!key || !first) return false;
    const replace = this.rewrites++ % 2 === 0;
    await this.submit(key, rewrite(first.values, replace), headers, { replace });
    return true;
  }

  /**
   * A record to write again, or undefined: one whose first write was answered before the last fault the
   * scenario has lived through began, not written again yet. A request is read again after a crash only
   * within the fault that interrupted it (docs/decisions.md, "RPC topics"), and one read again after a later
   * write of its key would run again (docs/operations.md, "Known limits"); writing a record again only after
   * the fault following its first write is over keeps the stored record exactly the one the rules give.
   */
  private nextToResend(): string | undefined {
    const next = this.firstAnswered[this.cursor];
    if (!next || next.at >= this.settledBefore) return undefined;
    this.cursor += RESEND_STRIDE;
    return next.key;
  }
}
