import { type BlobMeta, type BlobStore, BlobTooLargeError } from '@workline/blob-store';
import type { DomainError } from '@workline/contracts';
import type { FastifyRequest } from 'fastify';
import { PassThrough } from 'node:stream';

/**
 * Streams a presigned PUT's body into the blob store under `key`, never more than `maxBytes`: a declared
 * Content-Length above the limit is refused before a byte is read, a chunked body when it passes the limit
 * (the store keeps nothing of it). The body is `request.raw` itself (the route is a StreamedBody one: no
 * parser read it). The store reads from a pass-through so that a refusal mid-stream leaves the request
 * intact (drained), and the client gets its 413 instead of a reset connection.
 */
export async function storeUploadBody(
  blobs: BlobStore,
  key: string,
  request: FastifyRequest,
  options: { contentType: string; maxBytes: number; tooLarge: () => DomainError },
): Promise<BlobMeta> {
  if (Number(request.headers['content-length'] ?? 0) > options.maxBytes) throw options.tooLarge();
  const body = new PassThrough();
  request.raw.pipe(body);
  try {
    return await blobs.put(key, body, { contentType: options.contentType, maxBytes: options.maxBytes });
  } catch (error) {
    request.raw.unpipe(body);
    request.raw.resume();
    if (error instanceof BlobTooLargeError) throw options.tooLarge();
    throw error;
  }
}
