import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Request } from 'express';

/** Who is calling, as established by one of the auth guards. */
export type Principal =
  | { kind: 'api-key'; keyId: string; accountId: string; workstreamId: string | null }
  | { kind: 'account'; accountId: string }
  | { kind: 'worker'; workerId: string; email: string; name: string }
  | { kind: 'admin' };

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
