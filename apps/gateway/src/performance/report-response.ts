import { type PerformanceCaller, type PerformanceReportCsv, type ReportQueryDto, type RpcPattern, ServiceName } from '@workline/contracts';
import type { KafkaRpcClient } from '@workline/messaging';
import type { FastifyReply } from 'fastify';

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
  reply: FastifyReply,
): Promise<unknown> {
  const report = await rpc.request<object>(ServiceName.Performance, pattern, { caller, workstream_id: workstreamId, query: { ...query } });
  if (query.format !== 'csv') return report;
  const { csv, file_name } = report as PerformanceReportCsv;
  reply.type('text/csv; charset=utf-8').header('content-disposition', `attachment; filename="${file_name}"`);
  return csv;
}
