import { Module } from '@nestjs/common';
import { ApiKeyOrBasicGuard } from './api-key-or-basic.guard';
import { DeliveriesController } from './deliveries.controller';

/** Delivery API: the gateway's side (auth and scope); the webhook-dispatcher answers. */
@Module({ controllers: [DeliveriesController], providers: [ApiKeyOrBasicGuard] })
export class DeliveriesModule {}
