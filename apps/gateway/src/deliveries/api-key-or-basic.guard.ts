import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import type { FastifyRequest } from 'fastify';
import { ApiKeyGuard, BasicAuthGuard } from '../auth/guards';

/**
 * Routes that serve both API families (the Delivery API): x-api-key when the header is there, else
 * HTTP Basic. A wrong credential of either kind is refused by that kind's guard, with its message.
 */
@Injectable()
export class ApiKeyOrBasicGuard implements CanActivate {
  constructor(
    private readonly apiKey: ApiKeyGuard,
    private readonly basic: BasicAuthGuard,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const headers = context.switchToHttp().getRequest<FastifyRequest>().headers;
    if (headers['x-api-key'] !== undefined) return this.apiKey.canActivate(context);
    if (headers.authorization !== undefined) return this.basic.canActivate(context);
    throw new DomainError(ErrorCode.Unauthorized, 'Missing credentials: send x-api-key or HTTP Basic credentials');
  }
}
