export * from './retry-policy';
export * from './http-attempt';
export * from './webhook-dispatcher.options';
export * from './delivery-scope';
export * from './delivery.scheduler';
export * from './deliveries.service';
export * from './webhook-dispatcher-domain.module';
export * from './delivery.metrics';
