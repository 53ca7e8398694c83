import { Logger, Module } from '@nestjs/common';
import { type BlobStore, BlobStoreEnv, createBlobStore, InterruptedWritesSweep } from '@workline/blob-store';
import { loadEnv } from '@workline/config';
import { MEDIA_BLOB_FOLDER } from '@workline/contracts';
import { TASK_QUOTA_POLICY, TASK_QUOTA_PROVIDERS } from '@workline/task-quota';
import { BucketsAdminController } from './buckets.admin-controller';
import { MediaController } from './media.controller';
import { MEDIA_BLOB_STORE, OversightApiEnv } from './oversight-api.env';
import { OversightController } from './oversight.controller';
import { TaskQuotaAdminController } from './task-quota.admin-controller';
import { TaskQuotaRider } from './task-quota-rider';

/** Oversight API area of the gateway: /v1/signed-url, /v1/tasks, presigned media URLs, mounted buckets, task quotas. */
@Module({
  controllers: [OversightController, MediaController, BucketsAdminController, TaskQuotaAdminController],
  providers: [
    { provide: OversightApiEnv, useFactory: () => loadEnv(OversightApiEnv) },
    { provide: MEDIA_BLOB_STORE, useFactory: () => createBlobStore(loadEnv(BlobStoreEnv)) },
    {
      // A gateway killed during a media PUT leaves the write's temporary file (or, with S3, its spool).
      provide: InterruptedWritesSweep,
      useFactory: (blobs: BlobStore) =>
        new InterruptedWritesSweep(blobs, MEDIA_BLOB_FOLDER, (message) => new Logger('MediaUploads').warn(message)),
      inject: [MEDIA_BLOB_STORE],
    },
    { provide: TASK_QUOTA_POLICY, inject: [OversightApiEnv], useFactory: (env: OversightApiEnv) => env.taskQuota },
    ...TASK_QUOTA_PROVIDERS,
    TaskQuotaRider,
  ],
})
export class OversightApiModule {}
