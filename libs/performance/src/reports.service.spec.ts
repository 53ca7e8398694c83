import type { PublicSurface } from '@workline/db';
import { ErrorCode, type QualityReportGroup, type ReportGroup, type ThroughputReportGroup } from '@workline/contracts';
import type { ReportsRepository } from './reports.repository';
import { ReportsService } from './reports.service';
import { workstreamsWithOne } from './testing/workstreams';

type Query = {
  kind: 'quality' | 'throughput';
  workstreamId: string;
  group: ReportGroup | undefined;
  from: string | null;
  to: string | null;
};

/** Answers fixed groups and remembers what each report asked for. */
class InMemoryReportsRepository implements PublicSurface<ReportsRepository> {
  readonly queries: Query[] = [];

  constructor(
    private readonly qualityGroups: QualityReportGroup[],
    private readonly throughputGroups: ThroughputReportGroup[],
  ) {}

  async quality(workstreamId: string, group: ReportGroup | undefined, from: string | null, to: string | null) {
    this.queries.push({ kind: 'quality', workstreamId, group, from, to });
    return this.qualityGroups;
  }

  async throughput(workstreamId: string, group: ReportGroup | undefined, from: string | null, to: string | null) {
    this.queries.push({ kind: 'throughput', workstreamId, group, from, to });
    return this.throughputGroups;
  }
}

const quality: QualityReportGroup = {
  key: 'w-1',
  count: 2,
  mean_score: 0.75,
  p50_score: 0.75,
  p90_score: 0.95,
  min_score: 0.5,
  max_score: 1,
  errors: { typo: 3 },
};
const throughput: ThroughputReportGroup = {
  key: null,
  records: 4,
  tasks: 6,
  subtasks: 0,
  duration_seconds: 1800,
  mean_duration_seconds: 450,
  tasks_per_hour: 12,
};

async function setup() {
  const { workstreams, workstreamId } = await workstreamsWithOne();
  const repository = new InMemoryReportsRepository([quality], [throughput]);
  return { repository, workstreamId, reports: new ReportsService(repository, workstreams) };
}

const caller = { account_id: 'acc-1', workstream_id: null };

describe('ReportsService', () => {
  it('reads a date bound as midnight UTC and a date-time in UTC, and answers the groups of the grouping asked for', async () => {
    const { repository, reports, workstreamId } = await setup();
    const report = await reports.report('quality', {
      caller,
      workstream_id: workstreamId,
      query: { from: '2026-05-01', to: '2026-05-02T02:00:00+02:00', group_by: 'worker' },
    });
    expect(report).toEqual({
      workstream_id: workstreamId,
      kind: 'quality',
      from: '2026-05-01T00:00:00.000Z',
      to: '2026-05-02T00:00:00.000Z',
      group_by: 'worker',
      groups: [quality],
    });
    expect(repository.queries).toEqual([
      { kind: 'quality', workstreamId, group: 'worker', from: '2026-05-01T00:00:00.000Z', to: '2026-05-02T00:00:00.000Z' },
    ]);
  });

  it('leaves out bounds and grouping not asked for', async () => {
    const { repository, reports, workstreamId } = await setup();
    const report = await reports.report('throughput', { caller, workstream_id: workstreamId, query: {} });
    expect(report).toEqual({ workstream_id: workstreamId, kind: 'throughput', from: null, to: null, group_by: null, groups: [throughput] });
    expect(repository.queries).toEqual([{ kind: 'throughput', workstreamId, group: undefined, from: null, to: null }]);
  });

  it('answers CSV with a file name naming the report and the workstream', async () => {
    const { reports, workstreamId } = await setup();
    const report = await reports.report('throughput', { caller, workstream_id: workstreamId, query: { format: 'csv' } });
    expect(report).toEqual({
      csv: 'group,records,tasks,subtasks,duration_seconds,mean_duration_seconds,tasks_per_hour\r\nall,4,6,0,1800,450,12\r\n',
      file_name: `throughput-report-${workstreamId}.csv`,
    });
  });

  it('refuses bounds that are not dates, each named, and a period that ends before it starts, querying nothing', async () => {
    const { repository, reports, workstreamId } = await setup();
    const ask = (query: { from?: string; to?: string }) => reports.report('quality', { caller, workstream_id: workstreamId, query });
    await expect(ask({ from: 'yesterday', to: '2026-02-30' })).rejects.toMatchObject({
      code: ErrorCode.Validation,
      message: 'Invalid request: from must be an ISO 8601 date or date-time; to must be an ISO 8601 date or date-time',
      errors: [
        { field: 'from', message: 'from must be an ISO 8601 date or date-time' },
        { field: 'to', message: 'to must be an ISO 8601 date or date-time' },
      ],
    });
    const later = { code: ErrorCode.Validation, errors: [{ field: 'to', message: 'to must be later than from' }] };
    await expect(ask({ from: '2026-05-02', to: '2026-05-01T23:59:59Z' })).rejects.toMatchObject(later);
    await expect(ask({ from: '2026-05-02', to: '2026-05-02' })).rejects.toMatchObject(later);
    expect(repository.queries).toEqual([]);
  });

  it("refuses another account's workstream (403) and an unknown one (404)", async () => {
    const { repository, reports, workstreamId } = await setup();
    await expect(
      reports.report('quality', { caller: { account_id: 'acc-2', workstream_id: null }, workstream_id: workstreamId, query: {} }),
    ).rejects.toMatchObject({ code: ErrorCode.Forbidden });
    await expect(reports.report('quality', { caller, workstream_id: 'unknown', query: {} })).rejects.toMatchObject({
      code: ErrorCode.NotFound,
    });
    expect(repository.queries).toEqual([]);
  });
});
