import { type DynamicModule, Module } from '@nestjs/common';
import { RedisService } from '@workline/redis';
import { SecretBox } from '@workline/secrets';
import { Authenticator } from './authenticator';
import { IdentityEpoch } from './identity-epoch';
import { FailedAuthLimiter, type FailedAuthPolicy } from './failed-auth-limiter';
import { IdentityRepository } from './identity.repository';
import { IDENTITY_OBSERVER, type IdentityObserver, IdentityService } from './identity.service';

export interface IdentityOptions {
  secretsKey: string;
  failedAuth: FailedAuthPolicy;
  /** The operators' bearer token (`ADMIN_TOKEN`). */
  adminToken: string;
  observer?: IdentityObserver;
}

@Module({})
export class IdentityModule {
  static forRoot(options: IdentityOptions): DynamicModule {
    return {
      module: IdentityModule,
      global: true,
      providers: [
        { provide: SecretBox, useValue: new SecretBox(options.secretsKey) },
        ...(options.observer ? [{ provide: IDENTITY_OBSERVER, useValue: options.observer }] : []),
        IdentityRepository,
        IdentityService,
        {
          provide: FailedAuthLimiter,
          inject: [RedisService],
          useFactory: (redis: RedisService) => new FailedAuthLimiter(redis, options.failedAuth),
        },
        IdentityEpoch,
        {
          provide: Authenticator,
          inject: [IdentityService, FailedAuthLimiter, IdentityEpoch, RedisService],
          useFactory: (identity: IdentityService, limiter: FailedAuthLimiter, epoch: IdentityEpoch, redis: RedisService) =>
            new Authenticator(identity, limiter, epoch, redis, options.adminToken),
        },
      ],
      exports: [IdentityService, SecretBox, FailedAuthLimiter, Authenticator, IdentityEpoch],
    };
  }
}
