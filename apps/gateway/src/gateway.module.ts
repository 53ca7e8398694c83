import { type DynamicModule, Module } from '@nestjs/common';
import { DbModule } from '@workline/db';
import { IdentityModule } from '@workline/identity';
import { KafkaModule, kafkaSettingsFrom } from '@workline/kafka';
import { RedisModule } from '@workline/redis';
import { AdminController } from './admin/admin.controller';
import { GatewayCoreModule } from './gateway-core.module';
import type { GatewayEnv } from './gateway.env';
import { HealthController } from './health/health.controller';
import { PerformanceApiModule } from './performance/performance-api.module';
import { WorkController } from './work/work.controller';

/** The gateway: infrastructure modules, then one feature module per API area. */
@Module({})
export class GatewayModule {
  static register(env: GatewayEnv): DynamicModule {
    return {
      module: GatewayModule,
      imports: [
        DbModule.forRoot(env.DATABASE_URL),
        KafkaModule.forRoot({ settings: kafkaSettingsFrom(env, 'gateway'), rpcClientTimeoutMs: env.RPC_TIMEOUT_MS }),
        RedisModule.forRoot(env.REDIS_URL),
        IdentityModule.forRoot(env.secretsKey),
        GatewayCoreModule.register(env),
        // Feature modules (one per API area) go here.
        PerformanceApiModule,
      ],
      controllers: [HealthController, AdminController, WorkController],
    };
  }
}
