import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { FailedAuthLimiter, IdentityService } from '@workline/identity';
import { safeEqual } from '@workline/secrets';
import { GatewayEnv } from '../gateway.env';
import type { AuthenticatedRequest, Principal } from './principal';

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

const requestOf = (context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>();

/** The token of `Authorization: Bearer <token>`, if that is what the request carries. */
const bearerToken = (request: AuthenticatedRequest) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/**
 * Every credential check goes through here: a source over its failed-authentication limit gets 429 first,
 * and each failure is counted. `check` returns the principal, or an error message for 401.
 */
async function authenticate(limiter: FailedAuthLimiter, request: AuthenticatedRequest, check: () => Promise<Principal | string>): Promise<true> {
  const source = request.ip ?? request.socket.remoteAddress ?? 'unknown';
  await limiter.assertAllowed(source);
  const result = await check();
  if (typeof result === 'string') {
    await limiter.recordFailure(source);
    throw unauthorized(result);
  }
  request.principal = result;
  return true;
}

/** x-api-key for the workstream performance and oversight APIs (/v1). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly identity: IdentityService,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    return authenticate(this.limiter, request, async () => {
      const key = request.headers['x-api-key'];
      if (typeof key !== 'string' || !key) return 'Missing x-api-key header';
      const found = await this.identity.authenticateApiKey(key);
      return found ? { kind: 'api-key', ...found } : 'Invalid x-api-key';
    });
  }
}

/** HTTP Basic with the account's username and password, for the platform API (/v4, /v3). */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(
    private readonly identity: IdentityService,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    return authenticate(this.limiter, request, async () => {
      const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
      const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
      const colon = decoded.indexOf(':');
      if (colon < 0) return 'Bad credentials';
      const found = await this.identity.authenticateAccount(decoded.slice(0, colon), decoded.slice(colon + 1));
      return found ? { kind: 'account', accountId: found.accountId } : 'Bad credentials';
    });
  }
}

/** `Authorization: Bearer <worker token>` for the work API. */
@Injectable()
export class WorkerGuard implements CanActivate {
  constructor(
    private readonly identity: IdentityService,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    return authenticate(this.limiter, request, async () => {
      const token = bearerToken(request);
      if (!token) return 'Missing worker token: send Authorization: Bearer <worker token>';
      const worker = await this.identity.authenticateWorker(token);
      return worker ? { kind: 'worker', ...worker } : 'Invalid worker token';
    });
  }
}

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    private readonly env: GatewayEnv,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    return authenticate(this.limiter, request, async () => {
      const token = bearerToken(request);
      return token && safeEqual(token, this.env.ADMIN_TOKEN) ? { kind: 'admin' } : 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>';
    });
  }
}
