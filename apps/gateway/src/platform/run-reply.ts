import { StreamableFile } from '@nestjs/common';
import { type BlobStore, openJsonReply } from '@workline/blob-store';
import { DomainError, ErrorCode, type JsonReply, RpcPattern, type RunGetRequest, ServiceName } from '@workline/contracts';
import type { KafkaRpcClient } from '@workline/messaging';
import type { FastifyReply } from 'fastify';

/** The gateway's blob store (the one the apps share): large answers of platform-runs are read from it. */
export const PLATFORM_BLOB_STORE = Symbol('PLATFORM_BLOB_STORE');

/**
 * GET of a run (v4 and v3): platform-runs answers JSON text, inline or through the blob store (JsonReply).
 * It is sent as it is, never parsed and serialised again here; a large one is streamed from the store.
 */
export async function sendRun(
  rpc: KafkaRpcClient,
  blobs: BlobStore,
  reply: FastifyReply,
  request: RunGetRequest,
): Promise<string | StreamableFile> {
  const answer = await rpc.request<JsonReply>(ServiceName.PlatformRuns, RpcPattern.RunGet, request);
  const opened = await openJsonReply(blobs, answer);
  // Swept before it was read: only when this gateway took longer than the sweep's grace (minutes).
  if (!opened) throw new DomainError(ErrorCode.Unavailable, 'The run could not be read in time; try again');
  reply.type('application/json; charset=utf-8');
  return 'json' in opened
    ? opened.json
    : new StreamableFile(opened.stream, { type: 'application/json; charset=utf-8', length: opened.size });
}
