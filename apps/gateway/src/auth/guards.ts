import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { Authenticator, FailedAuthLimiter, type Principal } from '@workline/identity';
import type { ApiGroup } from '../http/problem';
import type { FastifyRequest } from 'fastify';
import { type Authentication, clientAddress, presentedCredential } from './authentication';

const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

/**
 * The outcome of the authentication hook (which runs for every API group before body parsing);
 * a guarded route outside those groups is authenticated here, with the credential of `group`.
 */
async function authenticationOf(authenticator: Authenticator, request: FastifyRequest, group: ApiGroup): Promise<Authentication> {
  if (request.authentication) return request.authentication;
  const credential = presentedCredential(group, request);
  const verdict = credential ? (await authenticator.authenticate(clientAddress(request), credential)).verdict : undefined;
  if (verdict?.outcome === 'verified') request.principal = verdict.principal;
  return (request.authentication = { credential, verdict });
}

/** What a guard admits, and its 401 messages when the credential is missing (or malformed) and when it is wrong. */
interface GuardRule {
  kind: Principal['kind'];
  /** The API group whose credential the guard reads when the authentication hook has not run. */
  group: ApiGroup;
  missing: string;
  invalid: string;
}

/**
 * Admits a request whose principal is of the rule's kind; otherwise 429 when its credential's failed-auth
 * bucket is full, else 401.
 */
@Injectable()
abstract class PrincipalGuard implements CanActivate {
  protected abstract readonly rule: GuardRule;

  constructor(
    private readonly authenticator: Authenticator,
    private readonly limiter: FailedAuthLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const { credential, verdict, error } = await authenticationOf(this.authenticator, request, this.rule.group);
    if (error) throw error;
    if (verdict?.outcome === 'verified' && verdict.principal.kind === this.rule.kind) return true;
    if (verdict?.outcome === 'locked') throw this.limiter.lockedOut(verdict.retryAfter);
    throw unauthorized(credential?.kind === this.rule.kind ? this.rule.invalid : this.rule.missing);
  }
}

/** x-api-key for the workstream performance and oversight APIs (/v1). */
@Injectable()
export class ApiKeyGuard extends PrincipalGuard {
  protected readonly rule: GuardRule = { kind: 'api-key', group: 'v1', missing: 'Missing x-api-key header', invalid: 'Invalid x-api-key' };
}

/** HTTP Basic with the account's username and password, for the platform API (/v4, /v3). */
@Injectable()
export class BasicAuthGuard extends PrincipalGuard {
  protected readonly rule: GuardRule = { kind: 'account', group: 'v4', missing: 'Bad credentials', invalid: 'Bad credentials' };
}

/** `Authorization: Bearer <worker token>` for the work API. */
@Injectable()
export class WorkerGuard extends PrincipalGuard {
  protected readonly rule: GuardRule = {
    kind: 'worker',
    group: 'work',
    missing: 'Missing worker token: send Authorization: Bearer <worker token>',
    invalid: 'Invalid worker token',
  };
}

const ADMIN_TOKEN_REFUSAL = 'Missing or invalid admin token: send Authorization: Bearer <ADMIN_TOKEN>';

/** `Authorization: Bearer <ADMIN_TOKEN>`, compared in constant time. */
@Injectable()
export class AdminTokenGuard extends PrincipalGuard {
  protected readonly rule: GuardRule = { kind: 'admin', group: 'admin', missing: ADMIN_TOKEN_REFUSAL, invalid: ADMIN_TOKEN_REFUSAL };
}
