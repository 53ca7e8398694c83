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

/** The app in front of the services: the one clients reach, over HTTP on PORT. */
export const GATEWAY_APP = 'gateway';
/** An app's name (a service's as a plain string too, e.g. 'performance'). */
export type AppName = `${ServiceName}` | typeof GATEWAY_APP;
/** Every app (a folder under apps/ each): the services, then the gateway, which the stacks start last. */
export const ALL_APPS: readonly AppName[] = [...ALL_SERVICES, GATEWAY_APP];

/** The Kafka consumer group an app's instances share (documented per topic in docs/asyncapi.json). */
export const consumerGroupOf = (app: string): string => `workline-${app}`;

/**
 * Where a service serves /metrics and /health (HTTP_PORT) in a stack whose gateway is on `gatewayPort`: the
 * ports right after the gateway's, in ALL_SERVICES order (gateway 3000: performance 3001 ... webhook-dispatcher 3004).
 */
export const serviceOpsPort = (service: ServiceName, gatewayPort: number): number => gatewayPort + 1 + ALL_SERVICES.indexOf(service);
