import { Module } from '@nestjs/common';
import { BlobStoreEnv, createBlobStore } from '@workline/blob-store';
import { loadEnv } from '@workline/config';
import { PlatformV3Controller } from './platform-v3.controller';
import { PlatformV4Controller } from './platform-v4.controller';
import { PLATFORM_BLOB_STORE } from './run-reply';

/** Platform API: v4 and the deprecated v3, both served by platform-runs (v3 deprecation: http/v3-deprecation.ts). */
@Module({
  controllers: [PlatformV4Controller, PlatformV3Controller],
  providers: [{ provide: PLATFORM_BLOB_STORE, useFactory: () => createBlobStore(loadEnv(BlobStoreEnv)) }],
})
export class PlatformModule {}
