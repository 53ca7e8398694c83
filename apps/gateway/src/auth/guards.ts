import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { Authenticator, type Credential, FailedAuthLimiter } from '@workline/identity';
import type { AuthenticatedRequest } from './principal';

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

const requestOf = (context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>();

/** The token of `Authorization: Bearer <token>`, if that is what the request carries. */
const bearerToken = (request: AuthenticatedRequest) => /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '')?.[1];

/** The x-api-key header, if present and not empty. */
export const apiKeyOf = (request: AuthenticatedRequest) => {
  const key = request.headers['x-api-key'];
  return typeof key === 'string' && key ? key : undefined;
};

/** The username and password of `Authorization: Basic`, if well-formed. */
export function basicCredentialOf(request: AuthenticatedRequest): Credential | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
  const decoded = match ? Buffer.from(match[1], 'base64').toString('utf8') : '';
  const colon = decoded.indexOf(':');
  return colon < 0 ? undefined : { kind: 'account', username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * Every credential check goes through here: the authenticator applies the failed-authentication limits
 * (429 when the credential's bucket is full) and the principal is attached to the request.
 * `credential` undefined means none (or a malformed one) was presented: 401 with `missing`.
 */
async function authenticate(authenticator: Authenticator, request: AuthenticatedRequest, credential: Credential | undefined, messages: { missing: string; invalid: string }, limiter: FailedAuthLimiter): Promise<true> {
  if (!credential) throw unauthorized(messages.missing);
  const verdict = await authenticator.authenticate(request.ip ?? request.socket.remoteAddress ?? 'unknown', credential);
  if (verdict.outcome === 'locked') throw limiter.lockedOut(verdict.retryAfter);
  if (verdict.outcome === 'invalid') throw unauthorized(messages.invalid);
  request.principal = verdict.principal;
  return true;
}

/** x-api-key for the workstream performance and oversight APIs (/v1). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const key = apiKeyOf(request);
    return authenticate(this.authenticator, request, key ? { kind: 'api-key', key } : undefined, { missing: 'Missing x-api-key header', invalid: 'Invalid x-api-key' }, this.limiter);
  }
}

/** HTTP Basic with the account's username and password, for the platform API (/v4, /v3). */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    return authenticate(this.authenticator, request, basicCredentialOf(request), { missing: 'Bad credentials', invalid: 'Bad credentials' }, this.limiter);
  }
}

/** `Authorization: Bearer <worker token>` for the work API. */
@Injectable()
export class WorkerGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const token = bearerToken(request);
    return authenticate(this.authenticator, request, token ? { kind: 'worker', token } : undefined, { missing: 'Missing worker token: send Authorization: Bearer <worker token>', invalid: 'Invalid worker token' }, this.limiter);
  }
}

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard implements CanActivate {
  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const token = bearerToken(request);
    const message = 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>';
    return authenticate(this.authenticator, request, token ? { kind: 'admin', token } : undefined, { missing: message, invalid: message }, this.limiter);
  }
}
