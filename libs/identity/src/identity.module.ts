import { type DynamicModule, Module } from '@nestjs/common';
import { IdentityService } from './identity.service';
import { SecretBox } from '@workline/secrets';

@Module({})
export class IdentityModule {
  static forRoot(secretsKey: string): DynamicModule {
    return {
      module: IdentityModule,
      global: true,
      providers: [{ provide: SecretBox, useValue: new SecretBox(secretsKey) }, IdentityService],
      exports: [IdentityService, SecretBox],
    };
  }
}
