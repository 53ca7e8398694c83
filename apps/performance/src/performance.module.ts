import { type DynamicModule, Module } from '@nestjs/common';
import type { BaseEnv } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';
import { WorkstreamsService } from '@workline/performance';
import { WorkstreamsRpcController } from './workstreams.rpc-controller';

@Module({})
export class PerformanceModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: PerformanceModule,
      imports: [DbModule.forRoot(env.DATABASE_URL), KafkaModule.forRoot({ settings, outbox: true, serveHealth: true })],
      controllers: [WorkstreamsRpcController],
      providers: [WorkstreamsService],
    };
  }
}
