import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@workline/identity';
import type { Request } from 'express';

export type { Principal } from '@workline/identity';

export type PrincipalOf<K extends Principal['kind']> = Extract<Principal, { kind: K }>;

export interface AuthenticatedRequest extends Request {
  principal?: Principal;
}

/** `@CurrentPrincipal() principal: PrincipalOf<'api-key'>` in a handler behind the matching guard. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<AuthenticatedRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without an auth guard');
  return principal;
});
