import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { PlatformRunsEnv } from './platform-runs.env';
import { PlatformRunsModule } from './platform-runs.module';

runService(ServiceName.PlatformRuns, (env, settings) => PlatformRunsModule.register(env, settings), PlatformRunsEnv);
