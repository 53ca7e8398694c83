import { type DynamicModule, Module } from '@nestjs/common';
import { DeliveriesService } from './deliveries.service';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery.options';
import { DeliveryMetrics } from './delivery.metrics';
import { DeliveryScheduler } from './delivery.scheduler';

/** The delivery domain: intake, the scheduler that makes the attempts, the Delivery API's queries. */
@Module({})
export class WebhookDispatcherDomainModule {
  static register(options: DeliveryOptions): DynamicModule {
    const providers = [{ provide: DELIVERY_OPTIONS, useValue: options }, DeliveryScheduler, DeliveriesService];
    return { module: WebhookDispatcherDomainModule, providers: [...providers, DeliveryMetrics], exports: providers };
  }
}
