import { type DynamicModule, Module } from '@nestjs/common';
import { DeliveriesService } from './deliveries.service';
import { WEBHOOK_DISPATCHER_OPTIONS, type WebhookDispatcherOptions } from './webhook-dispatcher.options';
import { DeliveryMetrics } from './delivery.metrics';
import { DeliveryScheduler } from './delivery.scheduler';

/** The webhook-dispatcher domain: intake of deliveries, the scheduler that makes the attempts, the Delivery API's queries. */
@Module({})
export class WebhookDispatcherDomainModule {
  static register(options: WebhookDispatcherOptions): DynamicModule {
    const providers = [{ provide: WEBHOOK_DISPATCHER_OPTIONS, useValue: options }, DeliveryScheduler, DeliveriesService];
    return { module: WebhookDispatcherDomainModule, providers: [...providers, DeliveryMetrics], exports: providers };
  }
}
