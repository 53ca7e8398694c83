import { type DynamicModule, Module } from '@nestjs/common';
import { SecretBox } from '@workline/secrets';
import { AuthenticationRoundTrip } from './authentication-round-trip';
import { Authenticator } from './authenticator';
import { IdentityEpoch } from './identity-epoch';
import { FailedAuthCounters } from './failed-auth-counters';
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
        FailedAuthCounters,
        {
          provide: FailedAuthLimiter,
          inject: [FailedAuthCounters],
          useFactory: (counters: FailedAuthCounters) => new FailedAuthLimiter(counters, options.failedAuth),
        },
        IdentityEpoch,
        AuthenticationRoundTrip,
        {
          provide: Authenticator,
          inject: [IdentityService, FailedAuthLimiter, IdentityEpoch, AuthenticationRoundTrip],
          useFactory: (identity: IdentityService, limiter: FailedAuthLimiter, epoch: IdentityEpoch, roundTrip: AuthenticationRoundTrip) =>
            new Authenticator(identity, limiter, epoch, roundTrip, options.adminToken),
        },
      ],
      exports: [IdentityService, SecretBox, FailedAuthLimiter, Authenticator, IdentityEpoch],
    };
  }
}
