import 'reflect-metadata';
import { BlobStoreEnv, createBlobStore } from '@workline/blob-store';
import { loadEnvOrExit } from '@workline/config';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { OversightEnv } from './oversight.env';
import { OversightModule } from './oversight.module';

runService(
  ServiceName.Oversight,
  (env) => OversightModule.register(env, createBlobStore(loadEnvOrExit(BlobStoreEnv, ServiceName.Oversight))),
  OversightEnv,
);
