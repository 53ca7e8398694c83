import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { PlatformRunsModule } from './platform-runs.module';

runService(ServiceName.PlatformRuns, (env, settings) => PlatformRunsModule.register(env, settings));
