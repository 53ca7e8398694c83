import { Module } from '@nestjs/common';
import { BlobStoreEnv, createBlobStore } from '@workline/blob-store';
import { loadEnv } from '@workline/config';
import { BucketsAdminController } from './buckets.admin-controller';
import { MediaController } from './media.controller';
import { MEDIA_BLOB_STORE, OversightApiEnv } from './oversight-api.env';
import { OversightController } from './oversight.controller';
import { TaskQuota } from './task-quota';

/** Oversight API area of the gateway: /v1/signed-url, /v1/tasks, presigned media URLs, mounted buckets. */
@Module({
  controllers: [OversightController, MediaController, BucketsAdminController],
  providers: [
    { provide: OversightApiEnv, useFactory: () => loadEnv(OversightApiEnv) },
    { provide: MEDIA_BLOB_STORE, useFactory: () => createBlobStore(loadEnv(BlobStoreEnv)) },
    TaskQuota,
  ],
})
export class OversightApiModule {}
