import { type PerformanceCaller, type PerformanceReportCsv, type ReportQueryDto, type RpcPattern, ServiceName } from '@workline/contracts';
import type { KafkaRpcClient } from '@workline/kafka';
import type { Response } from 'express';

/**
 * A quality or throughput report asked of the performance service, answered as JSON or as a CSV download.
 * Shared by the workstream API (x-api-key) and the admin API (the workstream's own account as caller).
 */
export async function sendReport(
  rpc: KafkaRpcClient,
  pattern: RpcPattern.QualityReport | RpcPattern.ThroughputReport,
  caller: PerformanceCaller,
  workstreamId: string,
  query: ReportQueryDto,
  response: Response,
): Promise<unknown> {
  const reply = await rpc.request<object>(ServiceName.Performance, pattern, { caller, workstream_id: workstreamId, query: { ...query } });
  if (query.format !== 'csv') return reply;
  const { csv, file_name } = reply as PerformanceReportCsv;
  response.type('text/csv; charset=utf-8').setHeader('content-disposition', `attachment; filename="${file_name}"`);
  return csv;
}
