import { type DynamicModule, Module } from '@nestjs/common';
import { AppMetrics } from './metrics';

/** Makes the app's AppMetrics injectable everywhere, so libraries can add their gauges to /metrics. */
@Module({})
export class ObservabilityModule {
  static forRoot(metrics: AppMetrics): DynamicModule {
    return { module: ObservabilityModule, global: true, providers: [{ provide: AppMetrics, useValue: metrics }], exports: [AppMetrics] };
  }
}
