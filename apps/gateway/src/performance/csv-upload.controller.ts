import { Controller, HttpCode, HttpStatus, Param, Put, Req } from '@nestjs/common';
import { BlobTooLargeError, FsBlobStore } from '@workline/blob-store';
import { DomainError, ErrorCode, type PerformanceUploadView, RpcPattern, ServiceName } from '@workline/contracts';
import { KafkaRpcClient } from '@workline/kafka';
import { checkSignedPath } from '@workline/secrets';
import type { Request } from 'express';
import { randomUUID } from 'node:crypto';
import { GatewayEnv } from '../gateway.env';
import { CSV_UPLOAD_MAX_BYTES, CSV_UPLOAD_PREFIX, csvUploadPath, uploadSigningKey } from './upload-url';

const REFUSED = {
  missing: 'Forbidden: the upload URL must carry its expires and signature parameters',
  tampered: 'Forbidden: the upload URL signature is invalid',
  expired: 'Forbidden: this upload URL has expired',
} as const;

/**
 * PUT <upload_url>: the presigned URL itself is the credential (no x-api-key). The CSV is streamed into
 * the blob store, then the performance service queues it; it is processed asynchronously.
 */
@Controller(CSV_UPLOAD_PREFIX.replace(/^\/|\/$/g, ''))
export class CsvUploadController {
  private readonly blobs: FsBlobStore;

  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly env: GatewayEnv,
  ) {
    this.blobs = new FsBlobStore(env.BLOB_DIR);
  }

  @Put(':uploadId')
  @HttpCode(HttpStatus.OK)
  async upload(@Param('uploadId') uploadId: string, @Req() request: Request): Promise<PerformanceUploadView> {
    const check = checkSignedPath(uploadSigningKey(this.env), 'PUT', csvUploadPath(uploadId), request.query);
    if (!check.ok) throw new DomainError(ErrorCode.Forbidden, REFUSED[check.reason]);
    const contentType = request.headers['content-type'] ?? '';
    const [mediaType, ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
    const charset = parameters.find((p) => p.startsWith('charset='))?.slice('charset='.length).replace(/"/g, '');
    if (mediaType !== 'text/csv' || (charset && !['utf-8', 'utf8', 'us-ascii'].includes(charset))) {
      throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type must be text/csv (UTF-8) (got ${contentType || 'none'})`);
    }
    const blobKey = `performance-uploads/${uploadId}/${randomUUID()}.csv`;
    let bytes: number;
    try {
      bytes = (await this.blobs.put(blobKey, request, { contentType: 'text/csv', maxBytes: CSV_UPLOAD_MAX_BYTES })).size;
    } catch (error) {
      if (error instanceof BlobTooLargeError) {
        throw new DomainError(ErrorCode.PayloadTooLarge, `CSV file is larger than the limit of ${CSV_UPLOAD_MAX_BYTES} bytes`);
      }
      throw error;
    }
    try {
      return await this.rpc.request<PerformanceUploadView>(ServiceName.Performance, RpcPattern.PerformanceUploadReceived, {
        upload_id: uploadId,
        blob_key: blobKey,
        bytes,
      });
    } catch (error) {
      await this.blobs.delete(blobKey);
      throw error;
    }
  }
}
