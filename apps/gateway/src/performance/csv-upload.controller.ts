import { Controller, HttpCode, HttpStatus, Param, Put, Req } from '@nestjs/common';
import { FsBlobStore } from '@workline/blob-store';
import { DomainError, ErrorCode, performanceUploadFolder, type PerformanceUploadView, RpcPattern, ServiceName } from '@workline/contracts';
import { KafkaRpcClient, RpcTimeoutError } from '@workline/messaging';
import { checkSignedPath } from '@workline/secrets';
import type { FastifyRequest } from 'fastify';
import { randomUUID } from 'node:crypto';
import { GatewayEnv } from '../gateway.env';
import { StreamedBody } from '../http/json-body';
import { storeUploadBody } from '../http/upload-body';
import { PerformanceApiEnv } from './performance-api.env';
import { CSV_UPLOAD_PREFIX, csvUploadPath, uploadSigningKey } from './upload-url';
import { PerformanceUploadAnswer, SignedUrlQuery } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

const REFUSED = {
  missing: 'Forbidden: the upload URL must carry its expires and signature parameters',
  tampered: 'Forbidden: the upload URL signature is invalid',
  expired: 'Forbidden: this upload URL has expired',
} as const;

const tooLarge = (limit: number) => new DomainError(ErrorCode.PayloadTooLarge, `CSV file is larger than the limit of ${limit} bytes`);

/**
 * PUT <upload_url>: the presigned URL itself is the credential (no x-api-key). The CSV is streamed into
 * the blob store, then the performance service queues it; it is processed asynchronously.
 */
@ApiArea('performance', 'signedUrl')
@Controller(CSV_UPLOAD_PREFIX.replace(/^\/|\/$/g, ''))
export class CsvUploadController {
  private readonly blobs: FsBlobStore;

  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly env: GatewayEnv,
    private readonly settings: PerformanceApiEnv,
  ) {
    this.blobs = new FsBlobStore(env.BLOB_DIR);
  }

  @Put(':upload_id')
  @ApiDoc({
    summary: 'Upload a CSV file to a presigned URL',
    doc: 'docs/performance-api.md',
    query: SignedUrlQuery,
    body: { 'text/csv': { type: 'string' } },
    ok: [200, 'The upload', PerformanceUploadAnswer],
    errors: [404, 409, 413, 415, 422],
  })
  @StreamedBody()
  @HttpCode(HttpStatus.OK)
  async upload(@Param('upload_id') uploadId: string, @Req() request: FastifyRequest): Promise<PerformanceUploadView> {
    const check = checkSignedPath(uploadSigningKey(this.env), 'PUT', csvUploadPath(uploadId), request.query as Record<string, unknown>);
    if (!check.ok) throw new DomainError(ErrorCode.Forbidden, REFUSED[check.reason]);
    const contentType = request.headers['content-type'] ?? '';
    const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
    const charset = parameters
      .find((p) => p.startsWith('charset='))
      ?.slice('charset='.length)
      .replace(/"/g, '');
    if (mediaType !== 'text/csv' || (charset && !['utf-8', 'utf8', 'us-ascii'].includes(charset))) {
      throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type must be text/csv (UTF-8) (got ${contentType || 'none'})`);
    }
    // Before a byte of the body: a used or expired upload is refused (409, 403) instead of after a
    // file of up to the limit has been written, and the upload's kind gives the limit.
    const open = await this.rpc.request<PerformanceUploadView>(ServiceName.Performance, RpcPattern.PerformanceUploadCheckOpen, {
      upload_id: uploadId,
    });
    const limit = this.settings.csvMaxBytes(open.kind);
    // Each PUT writes a file of its own, so a racing second PUT never overwrites the first one's.
    const blobKey = `${performanceUploadFolder(uploadId)}${randomUUID()}.csv`;
    const { size } = await storeUploadBody(this.blobs, blobKey, request, {
      contentType: 'text/csv',
      maxBytes: limit,
      tooLarge: () => tooLarge(limit),
    });
    try {
      return await this.rpc.request<PerformanceUploadView>(ServiceName.Performance, RpcPattern.PerformanceUploadReceived, {
        upload_id: uploadId,
        blob_key: blobKey,
        bytes: size,
      });
    } catch (error) {
      // Refused (a racing PUT won, or the URL expired meanwhile): the file is of no use. Without an answer
      // the upload may have been queued with it, so it stays: the service deletes its upload's files when
      // the upload ends, or when its URL has expired unused (docs/operations.md, "Upload file sweeps").
      if (!(error instanceof RpcTimeoutError)) await this.blobs.delete(blobKey);
      throw error;
    }
  }
}
