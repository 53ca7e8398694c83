import { Controller, Get, HttpCode, HttpStatus, Inject, Param, Put, Req, Res } from '@nestjs/common';
import { type BlobStore, openMountedBucket } from '@workline/blob-store';
import {
  DomainError,
  ErrorCode,
  type MediaLocation,
  mediaBlobKey,
  mediaUploadPath,
  RpcPattern,
  ServiceName,
  taskMediaPath,
  UPLOAD_MEDIA_TYPES,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { SecretBox, urlSigningKey } from '@workline/secrets';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { GatewayEnv } from '../gateway.env';
import { StreamedBody } from '../http/json-body';
import { storeUploadBody } from '../http/upload-body';
import { MEDIA_BLOB_STORE, OversightApiEnv } from './oversight-api.env';
import { assertSignedRequest } from './signed-media';
import { MediaStoredAnswer, SignedUrlQuery } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/**
 * On every answer of the media routes: a browser opening a media URL renders the bytes as the type sent,
 * never as what it would guess from them (a file made to look like HTML in a client's bucket).
 */
const NO_SNIFF = { 'x-content-type-options': 'nosniff' } as const;

const tooLarge = (limit: number) => new DomainError(ErrorCode.PayloadTooLarge, `The media is larger than the limit of ${limit} bytes`);

/**
 * Presigned media URLs served by the gateway: PUT uploads bytes for a media_key (the signature is the
 * authorisation), GET streams a task's media to the worker holding it. Bytes stream; never whole in memory.
 */
@Controller()
@ApiArea('oversight', 'signedUrl')
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

  @Put('uploads/media/:media_key')
  @ApiDoc({
    summary: 'Upload media to a presigned URL',
    doc: 'docs/oversight-api.md',
    query: SignedUrlQuery,
    body: Object.fromEntries(UPLOAD_MEDIA_TYPES.map((type) => [type, { type: 'string', format: 'binary' }])),
    ok: [200, 'The stored media', MediaStoredAnswer],
    errors: [413, 415],
  })
  @StreamedBody()
  @HttpCode(HttpStatus.OK)
  async upload(
    @Param('media_key') mediaKey: string,
    @Req() request: FastifyRequest,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ media_key: string; content_type: string; size: number }> {
    reply.headers(NO_SNIFF);
    assertSignedRequest(this.signingKey, 'PUT', mediaUploadPath(mediaKey), request, 'upload');
    const contentType = request.headers['content-type']?.split(';')[0].trim().toLowerCase();
    const supported = UPLOAD_MEDIA_TYPES.join(', ');
    if (!contentType) {
      throw new DomainError(
        ErrorCode.UnsupportedMediaType,
        `The Content-Type header is required: send the media type of the file (one of ${supported})`,
      );
    }
    if (!(UPLOAD_MEDIA_TYPES as readonly string[]).includes(contentType)) {
      throw new DomainError(ErrorCode.UnsupportedMediaType, `Content-Type ${contentType} is not supported: use one of ${supported}`);
    }
    // The URL's signed expiry is the grant's: while the signature holds, the grant takes a file (a second
    // PUT replaces the first), so nothing else needs asking before the body is read.
    const limit = this.settings.MEDIA_MAX_BYTES;
    const meta = await storeUploadBody(this.blobs, mediaBlobKey(mediaKey), request, {
      contentType,
      maxBytes: limit,
      tooLarge: () => tooLarge(limit),
    });
    return { media_key: mediaKey, content_type: meta.contentType, size: meta.size };
  }

  @Get('media/tasks/:task_id')
  @ApiDoc({
    summary: 'Download the media of a task (signed URL given to workers)',
    doc: 'docs/oversight-api.md',
    query: SignedUrlQuery,
    ok: [200, 'The media bytes', { '*/*': { type: 'string', format: 'binary' } }],
    errors: [404],
  })
  async download(@Param('task_id') taskId: string, @Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    reply.headers(NO_SNIFF);
    assertSignedRequest(this.signingKey, 'GET', taskMediaPath(taskId), request, 'media');
    const location = await this.rpc.request<MediaLocation>(ServiceName.Oversight, RpcPattern.TaskMediaLocate, { task_id: taskId });
    const found = await this.open(taskId, location);
    if (!found) throw DomainError.notFound(`the media of task ${taskId} can no longer be read`);
    // Fastify pipes the stream; if it fails midway, the connection is cut (the Content-Length is not met).
    await reply
      .code(200)
      .headers({ 'content-type': location.content_type, 'content-length': String(found.size) })
      .send(found.stream);
  }

  /**
   * The media's bytes. A mounted bucket is the client's storage, so its file may have been replaced since the
   * task was created on it: it is served only while the bytes that stream still sniff as the image type the
   * task recorded (the type sent), else refused with a 404 saying so.
   */
  private async open(taskId: string, location: MediaLocation): Promise<{ size: number; stream: Readable } | undefined> {
    if (location.source === 'upload') {
      const blob = await this.blobs.get(location.blob_key);
      return blob && { size: blob.meta.size, stream: blob.stream };
    }
    const object = await openMountedBucket(location.bucket, this.box).get(location.key);
    if (object && object.mediaType !== location.content_type) {
      object.stream.destroy();
      throw DomainError.notFound(`the media of task ${taskId} is no longer the ${location.content_type} it was created with`);
    }
    return object;
  }
}
