import { type DynamicModule, Module } from '@nestjs/common';
import { SecretBox } from '@workline/secrets';
import { FailedAuthLimiter, type FailedAuthPolicy } from './failed-auth-limiter';
import { IdentityService } from './identity.service';
import { RedisService } from '@workline/redis';

@Module({})
export class IdentityModule {
  static forRoot(secretsKey: string, failedAuthPolicy: FailedAuthPolicy): DynamicModule {
    return {
      module: IdentityModule,
      global: true,
      providers: [
        { provide: SecretBox, useValue: new SecretBox(secretsKey) },
        IdentityService,
        { provide: FailedAuthLimiter, inject: [RedisService], useFactory: (redis: RedisService) => new FailedAuthLimiter(redis, failedAuthPolicy) },
      ],
      exports: [IdentityService, SecretBox, FailedAuthLimiter],
    };
  }
}
