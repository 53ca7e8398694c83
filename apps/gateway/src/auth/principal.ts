import { createParamDecorator, type ExecutionContext } from '@nestjs/common';
import type { Principal } from '@workline/identity';
import type { FastifyRequest } from 'fastify';

export type { Principal } from '@workline/identity';

export type PrincipalOf<K extends Principal['kind']> = Extract<Principal, { kind: K }>;

declare module 'fastify' {
  interface FastifyRequest {
    /** Who the request proved to be (authentication hook or the route's guard). */
    principal?: Principal;
  }
}

/** `@CurrentPrincipal() principal: PrincipalOf<'api-key'>` in a handler behind the matching guard. */
export const CurrentPrincipal = createParamDecorator((_data: unknown, context: ExecutionContext): Principal => {
  const principal = context.switchToHttp().getRequest<FastifyRequest>().principal;
  if (!principal) throw new Error('CurrentPrincipal used on a route without an auth guard');
  return principal;
});
