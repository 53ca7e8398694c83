import { Inject, Injectable } from '@nestjs/common';
import type { PublicSurface } from '@workline/db';
import {
  type PerformanceReport,
  type PerformanceReportCsv,
  type PerformanceReportRequest,
  type QualityReportGroup,
  type ThroughputReportGroup,
} from '@workline/contracts';
import { parseDateTime, type PerformanceKind } from './record-rules';
import { validationError } from './records.service';
import { reportCsv } from './report-csv';
import { ReportsRepository } from './reports.repository';
import { WorkstreamsService } from './workstreams.service';

const DATE_ONLY = /^\d{4}-\d{2}-\d{2}$/;

/** Report bound: a date (midnight UTC) or a date-time; undefined when it is neither. */
function parseBound(value: string): string | undefined {
  return parseDateTime(DATE_ONLY.test(value) ? `${value}T00:00:00Z` : value);
}

/** Quality and throughput reports of a workstream, as JSON or CSV. */
@Injectable()
export class ReportsService {
  constructor(
    @Inject(ReportsRepository) private readonly reports: PublicSurface<ReportsRepository>,
    private readonly workstreams: WorkstreamsService,
  ) {}

  async report(
    kind: PerformanceKind,
    request: PerformanceReportRequest,
  ): Promise<PerformanceReport<QualityReportGroup | ThroughputReportGroup> | PerformanceReportCsv> {
    const workstream = await this.workstreams.authorize(request.caller, request.workstream_id);
    const { query } = request;
    const from = query.from === undefined ? null : parseBound(query.from);
    const to = query.to === undefined ? null : parseBound(query.to);
    const errors = [
      ...(from === undefined ? [{ field: 'from', message: 'from must be an ISO 8601 date or date-time' }] : []),
      ...(to === undefined ? [{ field: 'to', message: 'to must be an ISO 8601 date or date-time' }] : []),
    ];
    if (!errors.length && from && to && from >= to) errors.push({ field: 'to', message: 'to must be later than from' });
    if (errors.length) throw validationError(errors);
    const groups =
      kind === 'quality'
        ? await this.reports.quality(workstream.id, query.group_by, from!, to!)
        : await this.reports.throughput(workstream.id, query.group_by, from!, to!);
    const report = { workstream_id: workstream.id, kind, from: from!, to: to!, group_by: query.group_by ?? null, groups };
    if (query.format !== 'csv') return report;
    return { csv: reportCsv(kind, report), file_name: `${kind}-report-${workstream.id}.csv` };
  }
}
