import { type DynamicModule, Module } from '@nestjs/common';
import { FsBlobStore } from '@workline/blob-store';
import type { BaseEnv } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';
import { BLOB_STORE, INSTANCE_ID, RecordsService, ReportsService, UploadsService, WorkstreamsService } from '@workline/performance';
import { PerformanceApiRpcController } from './performance-api.rpc-controller';
import { WorkstreamsRpcController } from './workstreams.rpc-controller';

@Module({})
export class PerformanceModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    return {
      module: PerformanceModule,
      imports: [DbModule.forRoot(env.DATABASE_URL), KafkaModule.forRoot({ settings, outbox: true, serveHealth: true })],
      controllers: [WorkstreamsRpcController, PerformanceApiRpcController],
      providers: [
        WorkstreamsService,
        RecordsService,
        UploadsService,
        ReportsService,
        { provide: BLOB_STORE, useValue: new FsBlobStore(env.BLOB_DIR) },
        { provide: INSTANCE_ID, useValue: env.INSTANCE_ID },
      ],
    };
  }
}
