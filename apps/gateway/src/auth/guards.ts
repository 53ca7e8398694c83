import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { IdentityService } from '@workline/identity';
import type { AuthenticatedRequest } from './principal';

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

const requestOf = (context: ExecutionContext) => context.switchToHttp().getRequest<AuthenticatedRequest>();

/** x-api-key for the workstream performance and oversight APIs (/v1). */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly identity: IdentityService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const key = request.headers['x-api-key'];
    if (typeof key !== 'string' || !key) throw unauthorized('Missing x-api-key header');
    const found = await this.identity.authenticateApiKey(key);
    if (!found) throw unauthorized('Invalid x-api-key');
    request.principal = { kind: 'api-key', ...found };
    return true;
  }
}

/** HTTP Basic with the account's username and password, for the platform API (/v4, /v3). */
@Injectable()
export class BasicAuthGuard implements CanActivate {
  constructor(private readonly identity: IdentityService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) throw unauthorized('Bad credentials');
    const decoded = Buffer.from(match[1], 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw unauthorized('Bad credentials');
    const found = await this.identity.authenticateAccount(decoded.slice(0, colon), decoded.slice(colon + 1));
    if (!found) throw unauthorized('Bad credentials');
    request.principal = { kind: 'account', accountId: found.accountId };
    return true;
  }
}

/** `Authorization: Bearer <worker token>` for the work API. */
@Injectable()
export class WorkerGuard implements CanActivate {
  constructor(private readonly identity: IdentityService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = requestOf(context);
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match) throw unauthorized('Missing worker token: send Authorization: Bearer <worker token>');
    const worker = await this.identity.authenticateWorker(match[1]);
    if (!worker) throw unauthorized('Invalid worker token');
    request.principal = { kind: 'worker', ...worker };
    return true;
  }
}
