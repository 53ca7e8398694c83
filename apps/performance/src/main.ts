import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { PerformanceEnv } from './performance.env';
import { PerformanceModule } from './performance.module';

runService(ServiceName.Performance, (env, settings) => PerformanceModule.register(env, settings), PerformanceEnv);
