import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, type FieldError, type PerformanceCaller, type PerformanceRecordReply } from '@workline/contracts';
import { type Batcher, DbPool } from '@workline/db';
import { OutboxRelay } from '@workline/messaging';
import { withRequestIdHeader } from '@workline/observability';
import { checkRecord, PERFORMANCE_KINDS, type PerformanceKind } from './record-rules';
import { type RecordToStore, storeRecords, type StoreOutcome } from './record-store';
import { WorkstreamsService } from './workstreams.service';

/** The 202 message of each outcome (docs/performance-api.md). */
export const OUTCOME_MESSAGES: Record<StoreOutcome, string> = {
  stored: 'Record stored',
  replaced: 'Existing record replaced: a record with this unique_id already existed for this use case and task definition',
  ignored:
    'Duplicate ignored: a record with this unique_id already exists for this use case and task definition, and replace_duplicate is false',
};

export const validationError = (errors: FieldError[]) =>
  new DomainError(ErrorCode.Validation, `Invalid request: ${errors.map((e) => e.message).join('; ')}`, errors);

/**
 * task_reviewed and task_completed: check, then store (202 only once the row is committed). Submissions
 * that arrive together are written together, one transaction per batch and kind (group commit,
 * docs/decisions.md), with the outcomes a one-by-one order would have given.
 */
@Injectable()
export class RecordsService {
  private readonly batchers: Record<PerformanceKind, Batcher<RecordToStore, StoreOutcome>>;

  constructor(
    private readonly db: DbPool,
    private readonly workstreams: WorkstreamsService,
    private readonly outbox: OutboxRelay,
  ) {
    const batcher = (kind: PerformanceKind) => db.batcher(`${kind}_records`, (items: RecordToStore[]) => this.write(kind, items));
    this.batchers = Object.fromEntries(PERFORMANCE_KINDS.map((kind) => [kind, batcher(kind)])) as RecordsService['batchers'];
  }

  async submit(kind: PerformanceKind, caller: PerformanceCaller, workstreamId: string, body: unknown): Promise<PerformanceRecordReply> {
    const workstream = await this.workstreams.authorize(caller, workstreamId);
    const checked = checkRecord(kind, body, workstream);
    if (!checked.ok) throw validationError(checked.errors);
    const headers = withRequestIdHeader(undefined);
    const outcome = await this.batchers[kind].submit({ record: checked.record, workstream, ...(headers ? { headers } : {}) });
    return { message: OUTCOME_MESSAGES[outcome], outcome };
  }

  private async write(kind: PerformanceKind, items: RecordToStore[]): Promise<StoreOutcome[]> {
    const result = await this.db.transaction((sql) => storeRecords(sql, kind, items, null));
    if (result.qcEvents) this.outbox.poke();
    return result.outcomes;
  }
}
