import { type DynamicModule, Module } from '@nestjs/common';
import { FsBlobStore } from '@workline/blob-store';
import {
  BLOB_STORE,
  INSTANCE_ID,
  RecordsRepository,
  RecordsService,
  ReportsRepository,
  ReportsService,
  UPLOAD_SWEEP_SECONDS,
  UploadsRepository,
  UploadsService,
  WorkstreamsRepository,
  WorkstreamsService,
} from '@workline/performance';
import { PerformanceApiRpcController } from './performance-api.rpc-controller';
import type { PerformanceEnv } from './performance.env';
import { WorkstreamsRpcController } from './workstreams.rpc-controller';

@Module({})
export class PerformanceModule {
  static register(env: PerformanceEnv): DynamicModule {
    return {
      module: PerformanceModule,
      controllers: [WorkstreamsRpcController, PerformanceApiRpcController],
      providers: [
        WorkstreamsRepository,
        WorkstreamsService,
        RecordsRepository,
        RecordsService,
        UploadsRepository,
        UploadsService,
        ReportsRepository,
        ReportsService,
        { provide: BLOB_STORE, useValue: new FsBlobStore(env.BLOB_DIR) },
        { provide: INSTANCE_ID, useValue: env.INSTANCE_ID },
        { provide: UPLOAD_SWEEP_SECONDS, useValue: env.UPLOAD_SWEEP_INTERVAL_SECONDS },
      ],
    };
  }
}
