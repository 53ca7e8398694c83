import { type DynamicModule, Module } from '@nestjs/common';
import { GATEWAY_APP } from '@workline/contracts';
import { DbModule } from '@workline/db';
import { IdentityModule } from '@workline/identity';
import { KafkaModule } from '@workline/messaging';
import { ObservabilityModule } from '@workline/observability';
import { kafkaSettingsFrom } from '@workline/service-runtime';
import { RedisModule } from '@workline/redis';
import { AdminController } from './admin/admin.controller';
import { DeliveriesModule } from './deliveries/deliveries.module';
import { GatewayCoreModule } from './gateway-core.module';
import type { GatewayEnv } from './gateway.env';
import { HealthController } from './health/health.controller';
import { GatewayMetrics } from './http/metrics';
import { ApiKeyController } from './identity/api-key.controller';
import { DocsController } from './identity/docs.controller';
import { MetricsController } from './health/metrics.controller';
import { ApiDescription, OpenApiController } from './openapi/openapi.controller';
import { PlatformModule } from './platform/platform.module';
import { OversightApiModule } from './oversight/oversight-api.module';
import { PerformanceApiModule } from './performance/performance-api.module';
import { ConsoleModule } from './console/console.module';
import { WorkController } from './work/work.controller';

/** The gateway: infrastructure modules, then one feature module per API area. */
@Module({})
export class GatewayModule {
  static register(env: GatewayEnv): DynamicModule {
    const metrics = new GatewayMetrics();
    return {
      module: GatewayModule,
      imports: [
        // The registry libraries add their metrics to (the database pool's statements and connections).
        ObservabilityModule.forRoot(metrics),
        DbModule.forRoot(env.DATABASE_URL, env.DATABASE_POOL_SIZE),
        KafkaModule.forRoot({ settings: kafkaSettingsFrom(env, GATEWAY_APP), rpcClientTimeoutMs: env.RPC_TIMEOUT_MS }),
        RedisModule.forRoot(env.REDIS_URL),
        IdentityModule.forRoot({
          secretsKey: env.secretsKey,
          failedAuth: { limit: env.AUTH_FAILURE_LIMIT, windowSeconds: env.AUTH_FAILURE_WINDOW_SECONDS },
          adminToken: env.ADMIN_TOKEN,
          observer: metrics.identityObserver(),
        }),
        GatewayCoreModule.register(env, metrics),
        // Feature modules (one per API area) go here.
        DeliveriesModule,
        PlatformModule,
        OversightApiModule,
        PerformanceApiModule,
        ConsoleModule,
      ],
      providers: [ApiDescription],
      controllers: [
        HealthController,
        AdminController,
        WorkController,
        ApiKeyController,
        DocsController,
        OpenApiController,
        MetricsController,
      ],
    };
  }
}
