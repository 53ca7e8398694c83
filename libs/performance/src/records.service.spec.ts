import type { PublicSurface } from '@workline/db';
import { ErrorCode } from '@workline/contracts';
import { REQUEST_ID_KAFKA_HEADER, runWithRequestId } from '@workline/observability';
import type { PerformanceKind } from './record-rules';
import type { RecordToStore, StoreOutcome } from './record-store';
import type { RecordsRepository } from './records.repository';
import { OUTCOME_MESSAGES, RecordsService } from './records.service';
import { workstreamsWithOne } from './testing/workstreams';

/** The record tables in memory, with the unique_id rule (a repeat replaces or is ignored, per replace_duplicate). */
class InMemoryRecordsRepository implements PublicSurface<RecordsRepository> {
  readonly rows: { kind: PerformanceKind; item: RecordToStore }[] = [];

  async store(kind: PerformanceKind, item: RecordToStore): Promise<StoreOutcome> {
    const key = (row: { kind: PerformanceKind; item: RecordToStore }) => {
      const { record } = row.item;
      return [row.kind, record.workstream_id, record.use_case_id, record.task_definition_id, record.unique_id].join('|');
    };
    const earlier = item.record.unique_id === null ? -1 : this.rows.findIndex((row) => key(row) === key({ kind, item }));
    if (earlier < 0) {
      this.rows.push({ kind, item });
      return 'stored';
    }
    if (!item.record.replace_duplicate) return 'ignored';
    this.rows[earlier] = { kind, item };
    return 'replaced';
  }
}

async function setup() {
  const { workstreams, workstreamId } = await workstreamsWithOne();
  const repository = new InMemoryRecordsRepository();
  return { repository, workstreamId, records: new RecordsService(repository, workstreams) };
}

const projectKey = { account_id: 'acc-1', workstream_id: null };
const review = (workstreamId: string, extra: Record<string, unknown> = {}) => ({
  workstream_id: workstreamId,
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  worker_id: 'w-1',
  review_completed_at: '2026-05-01T10:00:00+02:00',
  review_score: 0.75,
  ...extra,
});

describe('RecordsService', () => {
  it('stores a checked quality record against its workstream, with the request id of the request', async () => {
    const { repository, records, workstreamId } = await setup();
    const reply = await runWithRequestId('req-1', () => records.submit('quality', projectKey, workstreamId, review(workstreamId)));
    expect(reply).toEqual({ message: 'Record stored', outcome: 'stored' });
    expect(repository.rows).toHaveLength(1);
    const [{ kind, item }] = repository.rows;
    expect(kind).toBe('quality');
    expect(item.workstream).toMatchObject({ id: workstreamId, account_id: 'acc-1' });
    expect(item.headers).toEqual({ [REQUEST_ID_KAFKA_HEADER]: 'req-1' });
    expect(item.record).toMatchObject({
      workstream_id: workstreamId,
      worker_id: 'w-1',
      review_completed_at: '2026-05-01T08:00:00.000Z',
      review_score: 0.75,
      replace_duplicate: true,
    });
  });

  it('sends no headers outside a request (nothing to correlate)', async () => {
    const { repository, records, workstreamId } = await setup();
    await records.submit('throughput', projectKey, workstreamId, { worker_id: 'w-1', task_completed_at: '2026-05-01T10:00:00Z' });
    expect(repository.rows[0].item).not.toHaveProperty('headers');
    expect(repository.rows[0].item.record).toMatchObject({ task_count: 1, use_case_id: '', task_definition_id: '' });
  });

  it('answers each outcome of a repeated unique_id with its message', async () => {
    const { records, workstreamId } = await setup();
    const submit = (extra: Record<string, unknown>) =>
      records.submit('quality', projectKey, workstreamId, review(workstreamId, { unique_id: 'u-1', ...extra }));
    expect(await submit({})).toEqual({ message: OUTCOME_MESSAGES.stored, outcome: 'stored' });
    expect(await submit({ review_score: 0.5 })).toEqual({ message: OUTCOME_MESSAGES.replaced, outcome: 'replaced' });
    expect(await submit({ replace_duplicate: false })).toEqual({ message: OUTCOME_MESSAGES.ignored, outcome: 'ignored' });
    expect(OUTCOME_MESSAGES.ignored).toMatch(/^Duplicate ignored: .* replace_duplicate is false$/);
  });

  it('refuses an invalid record with every field error, storing nothing', async () => {
    const { repository, records, workstreamId } = await setup();
    const submitted = records.submit(
      'quality',
      projectKey,
      workstreamId,
      review(workstreamId, { use_case_id: 'uc-9', review_score: 'high' }),
    );
    const unknownUseCase = `use_case_id "uc-9" is not a use case of workstream ${workstreamId}`;
    await expect(submitted).rejects.toMatchObject({
      code: ErrorCode.Validation,
      message: `Invalid request: review_score must be a number; ${unknownUseCase}`,
      errors: [
        { field: 'review_score', message: 'review_score must be a number' },
        { field: 'use_case_id', message: unknownUseCase },
      ],
    });
    expect(repository.rows).toEqual([]);
  });

  it("refuses another account's workstream and an unknown one before checking the body", async () => {
    const { repository, records, workstreamId } = await setup();
    await expect(records.submit('quality', { account_id: 'acc-2', workstream_id: null }, workstreamId, {})).rejects.toMatchObject({
      code: ErrorCode.Forbidden,
    });
    await expect(records.submit('quality', projectKey, 'unknown', {})).rejects.toMatchObject({ code: ErrorCode.NotFound });
    expect(repository.rows).toEqual([]);
  });
});
