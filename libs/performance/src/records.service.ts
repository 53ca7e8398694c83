import { Inject, Injectable } from '@nestjs/common';
import type { PublicSurface } from '@workline/db';
import { DomainError, ErrorCode, type FieldError, type PerformanceCaller, type PerformanceRecordReply } from '@workline/contracts';
import { withRequestIdHeader } from '@workline/observability';
import { checkRecord, type PerformanceKind } from './record-rules';
import type { StoreOutcome } from './record-store';
import { RecordsRepository } from './records.repository';
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

/** task_reviewed and task_completed: check, then store (202 only once the row is committed). */
@Injectable()
export class RecordsService {
  constructor(
    @Inject(RecordsRepository) private readonly records: PublicSurface<RecordsRepository>,
    private readonly workstreams: WorkstreamsService,
  ) {}

  /**
   * `rpcRequestId` is the asking RPC request's correlation id: a record without a unique_id is stored once
   * per request, even when the request is read again after a crash (docs/decisions.md, "RPC topics").
   */
  async submit(
    kind: PerformanceKind,
    caller: PerformanceCaller,
    workstreamId: string,
    body: unknown,
    rpcRequestId?: string,
  ): Promise<PerformanceRecordReply> {
    const workstream = await this.workstreams.authorize(caller, workstreamId);
    const checked = checkRecord(kind, body, workstream);
    if (!checked.ok) throw validationError(checked.errors);
    const headers = withRequestIdHeader(undefined);
    const outcome = await this.records.store(kind, { record: checked.record, workstream, rpcRequestId, ...(headers ? { headers } : {}) });
    return { message: OUTCOME_MESSAGES[outcome], outcome };
  }
}
