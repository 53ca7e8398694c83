import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  GeneratePresignedUrlDto,
  type PerformanceCaller,
  type PerformanceRecordReply,
  type PerformanceUploadView,
  ReportQueryDto,
  RpcPattern,
  ServiceName,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { signPath } from '@workline/secrets';
import type { FastifyReply } from 'fastify';
import { ApiKeyGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import { GatewayEnv } from '../gateway.env';
import { sendReport } from './report-response';
import { CSV_UPLOAD_URL_TTL_SECONDS, csvUploadPath, uploadSigningKey } from './upload-url';
import {
  PerformanceUploadAnswer,
  PresignedUploadAnswer,
  QualityReportAnswer,
  RecordAcceptedAnswer,
  ThroughputReportAnswer,
} from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';
import { reportContent } from '../openapi/examples';

const callerOf = (key: PrincipalOf<'api-key'>): PerformanceCaller => ({ account_id: key.accountId, workstream_id: key.workstreamId });

/**
 * Workstream performance API (docs/performance-api.md, spec group A). The performance service checks the
 * bodies (one set of rules for JSON and CSV rows) and whether the key may use the workstream.
 */
@Controller('v1/workstreams/:workstream_id')
@ApiArea('performance', 'apiKey')
@UseGuards(ApiKeyGuard)
export class PerformanceController {
  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly env: GatewayEnv,
  ) {}

  @Post('task_reviewed')
  @ApiDoc({
    summary: 'Submit a quality review record',
    doc: 'docs/performance-api.md',
    body: { record: 'quality' },
    ok: [202, 'Accepted', RecordAcceptedAnswer],
    errors: [400, 403, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.ACCEPTED)
  taskReviewed(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Body() body: unknown,
  ): Promise<{ message: string }> {
    return this.submit(RpcPattern.QualityRecordSubmit, key, workstreamId, body);
  }

  @Post('task_completed')
  @ApiDoc({
    summary: 'Submit a task completion record',
    doc: 'docs/performance-api.md',
    body: { record: 'throughput' },
    ok: [202, 'Accepted', RecordAcceptedAnswer],
    errors: [400, 403, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.ACCEPTED)
  taskCompleted(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Body() body: unknown,
  ): Promise<{ message: string }> {
    return this.submit(RpcPattern.ThroughputRecordSubmit, key, workstreamId, body);
  }

  @Post('performance/generate-presigned-url')
  @ApiDoc({
    summary: 'Get a presigned URL for a bulk CSV upload',
    doc: 'docs/performance-api.md',
    body: GeneratePresignedUrlDto,
    ok: [201, 'The upload URL', PresignedUploadAnswer],
    errors: [400, 403, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async generatePresignedUrl(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Body() body: GeneratePresignedUrlDto,
  ): Promise<{ upload_url: string; upload_id: string; expires_at: string; method: 'PUT'; content_type: 'text/csv' }> {
    const upload = await this.rpc.request<PerformanceUploadView>(ServiceName.Performance, RpcPattern.PerformanceUploadCreate, {
      caller: callerOf(key),
      workstream_id: workstreamId,
      kind: body.kind,
      ...(body.file_name !== undefined ? { file_name: body.file_name } : {}),
      expires_in_seconds: CSV_UPLOAD_URL_TTL_SECONDS,
    });
    const signed = signPath(uploadSigningKey(this.env), 'PUT', csvUploadPath(upload.upload_id), new Date(upload.expires_at));
    return {
      upload_url: `${this.env.publicUrl}${signed}`,
      upload_id: upload.upload_id,
      expires_at: upload.expires_at,
      method: 'PUT',
      content_type: 'text/csv',
    };
  }

  @Get('performance/uploads/:upload_id')
  @ApiDoc({
    summary: 'State of a bulk CSV upload',
    doc: 'docs/performance-api.md',
    ok: [200, 'The upload', PerformanceUploadAnswer],
    errors: [403, 404],
  })
  getUpload(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Param('upload_id') uploadId: string,
  ): Promise<PerformanceUploadView> {
    return this.rpc.request(ServiceName.Performance, RpcPattern.PerformanceUploadGet, {
      caller: callerOf(key),
      workstream_id: workstreamId,
      upload_id: uploadId,
    });
  }

  @Get('reports/quality')
  @ApiDoc({
    summary: 'Quality report',
    doc: 'docs/performance-api.md',
    query: ReportQueryDto,
    ok: [200, 'The report (JSON, or CSV with format=csv)', reportContent(QualityReportAnswer)],
    errors: [403, 404, 422],
  })
  qualityReport(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Query() query: ReportQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.report(RpcPattern.QualityReport, key, workstreamId, query, reply);
  }

  @Get('reports/throughput')
  @ApiDoc({
    summary: 'Throughput report',
    doc: 'docs/performance-api.md',
    query: ReportQueryDto,
    ok: [200, 'The report (JSON, or CSV with format=csv)', reportContent(ThroughputReportAnswer)],
    errors: [403, 404, 422],
  })
  throughputReport(
    @CurrentPrincipal() key: PrincipalOf<'api-key'>,
    @Param('workstream_id') workstreamId: string,
    @Query() query: ReportQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.report(RpcPattern.ThroughputReport, key, workstreamId, query, reply);
  }

  private async submit(
    pattern: RpcPattern,
    key: PrincipalOf<'api-key'>,
    workstreamId: string,
    body: unknown,
  ): Promise<{ message: string }> {
    const reply = await this.rpc.request<PerformanceRecordReply>(ServiceName.Performance, pattern, {
      caller: callerOf(key),
      workstream_id: workstreamId,
      body,
    });
    return { message: reply.message };
  }

  private report(
    pattern: RpcPattern.QualityReport | RpcPattern.ThroughputReport,
    key: PrincipalOf<'api-key'>,
    workstreamId: string,
    query: ReportQueryDto,
    reply: FastifyReply,
  ): Promise<unknown> {
    return sendReport(this.rpc, pattern, callerOf(key), workstreamId, query, reply);
  }
}
