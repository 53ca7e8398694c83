import type { WorkstreamCreatedEvent } from '@workline/contracts';
import type { PublicSurface } from '@workline/db';
import type { WorkstreamConfig } from '../record-rules';
import type { NewWorkstream, WorkstreamRow, WorkstreamsRepository } from '../workstreams.repository';
import { WorkstreamsService } from '../workstreams.service';

/** The workstream table and its outbox in memory, for unit tests of the services that read workstreams. */
export class InMemoryWorkstreamsRepository implements PublicSurface<WorkstreamsRepository> {
  readonly rows = new Map<string, WorkstreamRow>();
  readonly events: WorkstreamCreatedEvent[] = [];
  finds = 0;

  constructor(private readonly now = new Date('2026-05-06T07:08:09.000Z')) {}

  async insert(workstream: NewWorkstream, announce: (row: WorkstreamRow) => WorkstreamCreatedEvent): Promise<WorkstreamRow> {
    const row = { ...workstream, createdAt: this.now };
    this.rows.set(row.id, row);
    this.events.push(announce(row));
    return row;
  }

  async find(workstreamId: string): Promise<WorkstreamRow | null> {
    this.finds++;
    return this.rows.get(workstreamId) ?? null;
  }
}

/** A WorkstreamsService on an in-memory table holding one workstream of account acc-1 with use case uc-1 (task definition td-1). */
export async function workstreamsWithOne(): Promise<{ workstreams: WorkstreamsService; workstreamId: string }> {
  const workstreams = new WorkstreamsService(new InMemoryWorkstreamsRepository());
  const created = await workstreams.create({
    account_id: 'acc-1',
    name: 'Reviews',
    use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
  });
  return { workstreams, workstreamId: created.id };
}

/**
 * What records are checked against in the unit tests: workstream ws-1 of acc-1, use case uc-1 with task
 * definition td-1, no QC sampling.
 */
export const RULES_WORKSTREAM: WorkstreamConfig = {
  id: 'ws-1',
  account_id: 'acc-1',
  use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
  qc_score_threshold: 0.5,
  qc_sample_rate: 0,
};
