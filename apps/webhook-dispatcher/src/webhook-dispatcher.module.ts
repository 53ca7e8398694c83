import { type DynamicModule, Module } from '@nestjs/common';
import type { BaseEnv } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';

/** Owns every outbound call to clients (signed delivery, retries); for now it answers health probes. */
@Module({})
export class WebhookDispatcherModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: WebhookDispatcherModule,
      imports: [DbModule.forRoot(env.DATABASE_URL), KafkaModule.forRoot({ settings, serveHealth: true })],
    };
  }
}
