import { type MiddlewareConsumer, Module, type NestModule } from '@nestjs/common';
import { PlatformV3Controller } from './platform-v3.controller';
import { PlatformV4Controller } from './platform-v4.controller';
import { V3DeprecationMiddleware } from './v3-deprecation.middleware';

/** Platform API: v4 and the deprecated v3, both served by platform-runs. */
@Module({ controllers: [PlatformV4Controller, PlatformV3Controller] })
export class PlatformModule implements NestModule {
  configure(consumer: MiddlewareConsumer): void {
    consumer.apply(V3DeprecationMiddleware).forRoutes(PlatformV3Controller);
  }
}
