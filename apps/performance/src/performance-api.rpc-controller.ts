import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  PerformanceRecordSubmitRequest,
  type PerformanceRecordReply,
  PerformanceReportRequest,
  PerformanceUploadCheckOpenRequest,
  PerformanceUploadCreateRequest,
  PerformanceUploadGetRequest,
  PerformanceUploadReceivedRequest,
  type PerformanceUploadView,
  RpcPattern,
  validateContract,
} from '@workline/contracts';
import { IdempotentPattern, type KafkaMessageContext } from '@workline/messaging';
import { RecordsService, ReportsService, UploadsService } from '@workline/performance';

/** The workstream performance API (docs/performance-api.md), asked by the gateway. */
@Controller()
export class PerformanceApiRpcController {
  constructor(
    private readonly records: RecordsService,
    private readonly uploads: UploadsService,
    private readonly reports: ReportsService,
  ) {}

  @IdempotentPattern(RpcPattern.QualityRecordSubmit)
  submitQuality(@Payload() payload: unknown, @Ctx() context: KafkaMessageContext): Promise<PerformanceRecordReply> {
    const request = validateContract(PerformanceRecordSubmitRequest, payload);
    return this.records.submit('quality', request.caller, request.workstream_id, request.body, context.meta.correlationId);
  }

  @IdempotentPattern(RpcPattern.ThroughputRecordSubmit)
  submitThroughput(@Payload() payload: unknown, @Ctx() context: KafkaMessageContext): Promise<PerformanceRecordReply> {
    const request = validateContract(PerformanceRecordSubmitRequest, payload);
    return this.records.submit('throughput', request.caller, request.workstream_id, request.body, context.meta.correlationId);
  }

  @MessagePattern(RpcPattern.PerformanceUploadCreate)
  createUpload(@Payload() payload: unknown): Promise<PerformanceUploadView> {
    return this.uploads.create(validateContract(PerformanceUploadCreateRequest, payload));
  }

  @IdempotentPattern(RpcPattern.PerformanceUploadCheckOpen)
  checkUploadOpen(@Payload() payload: unknown): Promise<PerformanceUploadView> {
    return this.uploads.checkOpen(validateContract(PerformanceUploadCheckOpenRequest, payload));
  }

  @MessagePattern(RpcPattern.PerformanceUploadReceived)
  uploadReceived(@Payload() payload: unknown): Promise<PerformanceUploadView> {
    return this.uploads.received(validateContract(PerformanceUploadReceivedRequest, payload));
  }

  @IdempotentPattern(RpcPattern.PerformanceUploadGet)
  getUpload(@Payload() payload: unknown): Promise<PerformanceUploadView> {
    return this.uploads.get(validateContract(PerformanceUploadGetRequest, payload));
  }

  @IdempotentPattern(RpcPattern.QualityReport)
  qualityReport(@Payload() payload: unknown): Promise<unknown> {
    return this.reports.report('quality', validateContract(PerformanceReportRequest, payload));
  }

  @IdempotentPattern(RpcPattern.ThroughputReport)
  throughputReport(@Payload() payload: unknown): Promise<unknown> {
    return this.reports.report('throughput', validateContract(PerformanceReportRequest, payload));
  }
}
