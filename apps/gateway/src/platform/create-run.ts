import { RpcPattern, type RunCreateReply, type RunCreateRequest, ServiceName } from '@workline/contracts';
import type { KafkaRpcClient } from '@workline/messaging';
import type { FastifyReply } from 'fastify';
import { markReplayed } from '../http/idempotency';

/** POST /v4/runs and POST /v3/tasks: platform-runs creates (or replays, same Idempotency-Key) the run. */
export async function createRun(rpc: KafkaRpcClient, reply: FastifyReply, request: RunCreateRequest): Promise<object> {
  const { view, replayed } = await rpc.request<RunCreateReply>(ServiceName.PlatformRuns, RpcPattern.RunCreate, request);
  markReplayed(reply, replayed);
  return view;
}
