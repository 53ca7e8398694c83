import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { Authenticator, FailedAuthLimiter, type Principal } from '@workline/identity';
import type { ApiGroup } from '../http/problem';
import { type Authentication, clientAddress, presentedCredential, type RequestWithAuthentication } from './authentication';

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

/**
 * The outcome of the authentication middleware (which runs for every API group before body parsing);
 * a guarded route outside those groups is authenticated here, with the credential of `group`.
 */
async function authenticationOf(authenticator: Authenticator, request: RequestWithAuthentication, group: ApiGroup): Promise<Authentication> {
  if (request.authentication) return request.authentication;
  const credential = presentedCredential(group, request);
  const verdict = credential ? (await authenticator.authenticate(clientAddress(request), credential)).verdict : undefined;
  if (verdict?.outcome === 'verified') request.principal = verdict.principal;
  return (request.authentication = { credential, verdict });
}

/**
 * Admits a request whose principal is one of `kinds`; otherwise 429 when its credential's failed-auth
 * bucket is full, else 401 with `message(authentication)`.
 */
@Injectable()
abstract class PrincipalGuard implements CanActivate {
  protected abstract readonly kinds: Principal['kind'][];
  protected abstract readonly group: ApiGroup;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  protected abstract refusal(authentication: Authentication): string;

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<RequestWithAuthentication>();
    const authentication = await authenticationOf(this.authenticator, request, this.group);
    const verdict = authentication.verdict;
    if (verdict?.outcome === 'verified' && this.kinds.includes(verdict.principal.kind)) return true;
    if (verdict?.outcome === 'locked') throw this.limiter.lockedOut(verdict.retryAfter);
    throw unauthorized(this.refusal(authentication));
  }
}

/** x-api-key for the workstream performance and oversight APIs (/v1). */
@Injectable()
export class ApiKeyGuard extends PrincipalGuard {
  protected readonly kinds: Principal['kind'][] = ['api-key'];
  protected readonly group = 'v1';

  protected refusal(authentication: Authentication): string {
    return authentication.credential?.kind === 'api-key' ? 'Invalid x-api-key' : 'Missing x-api-key header';
  }
}

/** HTTP Basic with the account's username and password, for the platform API (/v4, /v3). */
@Injectable()
export class BasicAuthGuard extends PrincipalGuard {
  protected readonly kinds: Principal['kind'][] = ['account'];
  protected readonly group = 'v4';

  protected refusal(): string {
    return 'Bad credentials';
  }
}

/** `Authorization: Bearer <worker token>` for the work API. */
@Injectable()
export class WorkerGuard extends PrincipalGuard {
  protected readonly kinds: Principal['kind'][] = ['worker'];
  protected readonly group = 'work';

  protected refusal(authentication: Authentication): string {
    return authentication.credential?.kind === 'worker' ? 'Invalid worker token' : 'Missing worker token: send Authorization: Bearer <worker token>';
  }
}

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard extends PrincipalGuard {
  protected readonly kinds: Principal['kind'][] = ['admin'];
  protected readonly group = 'admin';

  protected refusal(): string {
    return 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>';
  }
}
