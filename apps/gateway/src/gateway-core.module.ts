import { type DynamicModule, Global, Module } from '@nestjs/common';
import { AdminTokenGuard, ApiKeyGuard, BasicAuthGuard, WorkerGuard } from './auth/guards';
import { GatewayEnv } from './gateway.env';
import { GatewayLifecycle } from './health/lifecycle';
import { GatewayMetrics } from './http/metrics';

/**
 * What every gateway feature module may use: the validated environment and the auth guards.
 * Feature modules (one per API area) import nothing else from the gateway to stay independent.
 */
@Global()
@Module({})
export class GatewayCoreModule {
  static register(env: GatewayEnv, metrics: GatewayMetrics): DynamicModule {
    const providers = [
      { provide: GatewayEnv, useValue: env },
      { provide: GatewayMetrics, useValue: metrics },
      { provide: GatewayLifecycle, useValue: new GatewayLifecycle() },
      AdminTokenGuard,
      ApiKeyGuard,
      BasicAuthGuard,
      WorkerGuard,
    ];
    return { module: GatewayCoreModule, providers, exports: providers };
  }
}
