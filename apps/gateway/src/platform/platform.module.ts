import { Module } from '@nestjs/common';
import { PlatformV3Controller } from './platform-v3.controller';
import { PlatformV4Controller } from './platform-v4.controller';

/** Platform API: v4 and the deprecated v3, both served by platform-runs (v3 deprecation: http/v3-deprecation.ts). */
@Module({ controllers: [PlatformV4Controller, PlatformV3Controller] })
export class PlatformModule {}
