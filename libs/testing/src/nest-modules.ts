import type { DynamicModule } from '@nestjs/common';

/** The value a dynamic module provides for `token` (its `useValue`), for the unit tests of an app's module wiring. */
export const providedValue = <T = unknown>(module: DynamicModule, token: unknown): T | undefined =>
  (module.providers as { provide?: unknown; useValue?: unknown }[] | undefined)?.find((provider) => provider.provide === token)
    ?.useValue as T | undefined;
