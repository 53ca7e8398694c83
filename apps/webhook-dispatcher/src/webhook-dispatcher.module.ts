import { type DynamicModule, Module } from '@nestjs/common';
import { WebhookDispatcherDomainModule } from '@workline/webhook-dispatcher';
import type { KafkaSettings } from '@workline/messaging';
import { DeliveriesRpcController } from './deliveries.rpc-controller';
import type { WebhookDispatcherEnv } from './webhook-dispatcher.env';
import { DeliveryRequestedEventController } from './delivery-requested.event-controller';

/** Owns every outbound call to clients: intake from Kafka, signed attempts with retries, the Delivery API. */
@Module({})
export class WebhookDispatcherModule {
  static register(env: WebhookDispatcherEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: [
        WebhookDispatcherDomainModule.register({
          source: settings.app,
          instanceId: settings.instanceId,
          secretsKey: env.secretsKey,
          retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
          callbackPolicy: env.callbackPolicy,
          pollMs: env.WEBHOOK_POLL_MS,
          concurrency: env.WEBHOOK_CONCURRENCY,
          originConcurrency: env.WEBHOOK_ORIGIN_CONCURRENCY,
          leaseMs: env.WEBHOOK_LEASE_MS,
        }),
      ],
      controllers: [DeliveryRequestedEventController, DeliveriesRpcController],
    };
  }
}
