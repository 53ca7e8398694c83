import { type DynamicModule, Module } from '@nestjs/common';
import type { BaseEnv } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';
import { ConfigurationsService } from '@workline/oversight';
import { ConfigurationsRpcController } from './configurations.rpc-controller';

@Module({})
export class OversightModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: OversightModule,
      imports: [DbModule.forRoot(env.DATABASE_URL), KafkaModule.forRoot({ settings, outbox: true, serveHealth: true })],
      controllers: [ConfigurationsRpcController],
      providers: [ConfigurationsService],
    };
  }
}
