import 'reflect-metadata';
import { ServiceName } from '@workline/contracts';
import { runService } from '@workline/service-runtime';
import { WebhookDispatcherEnv } from './webhook-dispatcher.env';
import { WebhookDispatcherModule } from './webhook-dispatcher.module';

// Every statement of the dispatcher takes deliveries by key or along an index; a plan made while the
// delivery table was small must not go on reading it whole (docs/decisions.md, "A queue's plans made while it was small").
runService(ServiceName.WebhookDispatcher, (env, settings) => WebhookDispatcherModule.register(env, settings), WebhookDispatcherEnv, {
  sequentialScans: false,
});
