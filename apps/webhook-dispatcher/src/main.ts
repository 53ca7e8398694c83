import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { WebhookDispatcherEnv } from './webhook-dispatcher.env';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

runService(ServiceName.WebhookDispatcher, (env, settings) => WebhookDispatcherModule.register(env, settings), WebhookDispatcherEnv);
