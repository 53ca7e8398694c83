import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/kafka';
import { OversightModule } from './oversight.module';

runService(ServiceName.Oversight, (env, settings) => OversightModule.register(env, settings));
