import { Controller, Get, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { type BlobStore, openMountedBucket } from '@workline/blob-store';
import {
  DomainError,
  ErrorCode,
  type MediaLocation,
  mediaUploadPath,
  RpcPattern,
  ServiceName,
  taskMediaPath,
  UPLOAD_MEDIA_TYPES,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/kafka';
import { SecretBox, urlSigningKey } from '@workline/secrets';
import type { Request, Response } from 'express';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GatewayEnv } from '../gateway.env';
import { storeUploadBody } from '../http/upload-body';
import { MEDIA_BLOB_STORE, OversightApiEnv } from './oversight-api.env';
import { assertSignedRequest } from './signed-media';

const tooLarge = (limit: number) => new DomainError(ErrorCode.PayloadTooLarge, `The media is larger than the limit of ${limit} bytes`);

/**
 * Presigned media URLs served by the gateway: PUT uploads bytes for a media_key (the signature is the
 * authorisation), GET streams a task's media to the worker holding it. Bytes stream; never whole in memory.
 */
@Controller()
export class MediaController {
  private readonly signingKey: string;
  private readonly box: SecretBox;

  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly settings: OversightApiEnv,
    @Inject(MEDIA_BLOB_STORE) private readonly blobs: BlobStore,
    env: GatewayEnv,
  ) {
    this.signingKey = urlSigningKey(env.secretsKey);
    this.box = new SecretBox(env.secretsKey);
  }

  @Put('uploads/media/:mediaKey')
  async upload(@Param('mediaKey') mediaKey: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    assertSignedRequest(this.signingKey, 'PUT', mediaUploadPath(mediaKey), request, 'upload');
    const contentType = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
    const supported = UPLOAD_MEDIA_TYPES.join(', ');
    if (!contentType) {
      throw new DomainError(ErrorCode.UnsupportedMediaType, `The Content-Type header is required: send the media type of the file (one of ${supported})`);
    }
    if (!(UPLOAD_MEDIA_TYPES as readonly string[]).includes(contentType)) {
      throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type ${contentType} is not supported: use one of ${supported}`);
    }
    // The URL's signed expiry is the grant's: while the signature holds, the grant takes a file (a second
    // PUT replaces the first), so nothing else needs asking before the body is read.
    const limit = this.settings.MEDIA_MAX_BYTES;
    const meta = await storeUploadBody(this.blobs, `media/${mediaKey}`, request, { contentType, maxBytes: limit, tooLarge: () => tooLarge(limit) });
    response.status(200).json({ media_key: mediaKey, content_type: meta.contentType, size: meta.size });
  }

  @Get('media/tasks/:taskId')
  async download(@Param('taskId') taskId: string, @Req() request: Request, @Res() response: Response): Promise<void> {
    assertSignedRequest(this.signingKey, 'GET', taskMediaPath(taskId), request, 'media');
    const location = await this.rpc.request<MediaLocation>(ServiceName.Oversight, RpcPattern.TaskMediaLocate, { task_id: taskId });
    const found = await this.open(location);
    if (!found) throw DomainError.notFound(`the media of task ${taskId} can no longer be read`);
    response.status(200).setHeader('Content-Type', location.content_type).setHeader('Content-Length', String(found.size));
    await pipeline(found.stream, response);
  }

  private async open(location: MediaLocation): Promise<{ size: number; stream: Readable } | undefined> {
    if (location.source === 'upload') {
      const blob = await this.blobs.get(location.blob_key);
      return blob && { size: blob.meta.size, stream: blob.stream };
    }
    return openMountedBucket(location.bucket, this.box).get(location.key);
  }
}
