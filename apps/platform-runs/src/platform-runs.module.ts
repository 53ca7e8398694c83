import { type DynamicModule, Module } from '@nestjs/common';
import type { BaseEnv } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';
import { LinesService } from '@workline/platform';
import { LinesRpcController } from './lines.rpc-controller';

@Module({})
export class PlatformRunsModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: PlatformRunsModule,
      imports: [DbModule.forRoot(env.DATABASE_URL), KafkaModule.forRoot({ settings, outbox: true, serveHealth: true })],
      controllers: [LinesRpcController],
      providers: [LinesService],
    };
  }
}
