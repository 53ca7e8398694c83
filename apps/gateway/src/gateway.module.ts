import { type DynamicModule, Module } from '@nestjs/common';
import { DbModule } from '@workline/db';
import { IdentityModule } from '@workline/identity';
import { KafkaModule, kafkaSettingsFrom } from '@workline/kafka';
import { RedisModule } from '@workline/redis';
import { AdminController } from './admin/admin.controller';
import { AdminTokenGuard } from './admin/admin-token.guard';
import { ApiKeyGuard, BasicAuthGuard, WorkerGuard } from './auth/guards';
import { GatewayEnv } from './gateway.env';
import { HealthController } from './health/health.controller';
import { WorkController } from './work/work.controller';

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
      ],
      controllers: [HealthController, AdminController, WorkController],
      providers: [{ provide: GatewayEnv, useValue: env }, AdminTokenGuard, ApiKeyGuard, BasicAuthGuard, WorkerGuard],
    };
  }
}
