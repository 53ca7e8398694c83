import { Topic } from './topics';

/** The services behind the gateway, each answering request-reply on its own topic. */
export enum ServiceName {
  Performance = 'performance',
  Oversight = 'oversight',
  PlatformRuns = 'platform-runs',
  WebhookDispatcher = 'webhook-dispatcher',
}

export const SERVICE_RPC_TOPIC: Record<ServiceName, Topic> = {
  [ServiceName.Performance]: Topic.PerformanceRpc,
  [ServiceName.Oversight]: Topic.OversightRpc,
  [ServiceName.PlatformRuns]: Topic.PlatformRunsRpc,
  [ServiceName.WebhookDispatcher]: Topic.WebhookDispatcherRpc,
};

export const ALL_SERVICES = Object.values(ServiceName);
