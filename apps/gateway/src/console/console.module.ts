import { Module } from '@nestjs/common';
import { ConsoleController } from './console.controller';

/** The worker's web console (docs/console.md): static files served by the gateway. */
@Module({ controllers: [ConsoleController] })
export class ConsoleModule {}
