import { type DynamicModule, Module } from '@nestjs/common';
import type { BlobStore } from '@workline/blob-store';
import {
  AssignmentsRepository,
  AssignmentsService,
  BucketsRepository,
  BucketsService,
  ConfigurationsRepository,
  ConfigurationsService,
  MediaGrantsRepository,
  MediaGrantsService,
  OVERSIGHT_OPTIONS,
  type OversightOptions,
  TaskLeaseMetrics,
  TasksRepository,
  TasksService,
} from '@workline/oversight';
import { AssignmentsRpcController } from './assignments.rpc-controller';
import { ConfigurationsRpcController } from './configurations.rpc-controller';
import type { OversightEnv } from './oversight.env';
import { TasksRpcController } from './tasks.rpc-controller';

@Module({})
export class OversightModule {
  static register(env: OversightEnv, blobs: BlobStore): DynamicModule {
    const options: OversightOptions = {
      publicUrl: env.publicUrl,
      secretsKey: env.secretsKey,
      blobs,
      leaseSeconds: env.TASK_LEASE_SECONDS,
      mediaKeyRetentionSeconds: env.MEDIA_KEY_RETENTION_SECONDS,
      uploadSweepSeconds: env.UPLOAD_SWEEP_INTERVAL_SECONDS,
    };
    return {
      module: OversightModule,
      controllers: [ConfigurationsRpcController, TasksRpcController, AssignmentsRpcController],
      providers: [
        { provide: OVERSIGHT_OPTIONS, useValue: options },
        ConfigurationsRepository,
        ConfigurationsService,
        MediaGrantsRepository,
        MediaGrantsService,
        BucketsRepository,
        BucketsService,
        TasksRepository,
        TasksService,
        AssignmentsRepository,
        AssignmentsService,
        TaskLeaseMetrics,
      ],
    };
  }
}
