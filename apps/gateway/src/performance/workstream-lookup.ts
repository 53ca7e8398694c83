import { RpcPattern, ServiceName, type WorkstreamView } from '@workline/contracts';
import type { KafkaRpcClient } from '@workline/messaging';

/**
 * A workstream, as the admin routes under /admin/v1/workstreams/{id} need it (its account): asked of the
 * performance service, which owns workstreams; a DomainError NOT_FOUND (404) when it knows none of that id.
 */
export function findWorkstream(rpc: KafkaRpcClient, workstreamId: string): Promise<WorkstreamView> {
  return rpc.request<WorkstreamView>(ServiceName.Performance, RpcPattern.WorkstreamGet, { workstream_id: workstreamId });
}
