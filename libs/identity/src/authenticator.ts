import { Injectable } from '@nestjs/common';
import { safeEqual, sha256 } from '@workline/secrets';
import { failureBucket, FailedAuthLimiter, type Lockout } from './failed-auth-limiter';
import { IdentityService } from './identity.service';

/** Who is calling, once a credential has been verified. */
export type Principal =
  | { kind: 'api-key'; keyId: string; accountId: string; workstreamId: string | null }
  | { kind: 'account'; accountId: string }
  | { kind: 'worker'; workerId: string; email: string; name: string }
  | { kind: 'admin' };

/** A credential as presented, before it is verified. */
export type Credential =
  | { kind: 'api-key'; key: string }
  | { kind: 'account'; username: string; password: string }
  | { kind: 'worker'; token: string }
  | { kind: 'admin'; token: string };

export type Verdict =
  | { outcome: 'verified'; principal: Principal }
  | { outcome: 'invalid' }
  /** Too many failures in this credential's bucket: refused (even when right) until `retryAfter` seconds pass. */
  | { outcome: 'locked'; retryAfter: number };

/** The budget a principal's requests are counted against (rate limits): never the secret itself. */
export function principalSubject(principal: Principal): string {
  switch (principal.kind) {
    case 'api-key':
      return `api-key:${principal.keyId}`;
    case 'account':
      return `account:${principal.accountId}`;
    case 'worker':
      return `worker:${principal.workerId}`;
    case 'admin':
      return 'admin';
  }
}

const verdictOf = (principal: Principal | undefined, lockout: Lockout): Verdict =>
  lockout !== undefined ? { outcome: 'locked', retryAfter: lockout } : principal ? { outcome: 'verified', principal } : { outcome: 'invalid' };

/**
 * Verifies credentials under the failed-authentication limits (docs/decisions.md, "Failed authentications"):
 * - a password (HTTP Basic) is a guessable secret: its check (scrypt) reserves a slot of the bucket of the
 *   address and the account it names first, so at most `limit` checks run per window and bucket however
 *   many attempts arrive at once, and a full bucket refuses even the right password;
 * - API keys and worker tokens are 192-bit random values that cannot be guessed: a right one is always
 *   accepted, a wrong one is counted per address and answered 429 past the limit;
 * - the admin token is chosen by an operator and may be guessable: like a password, but per address.
 */
@Injectable()
export class Authenticator {
  constructor(
    private readonly identity: IdentityService,
    private readonly limiter: FailedAuthLimiter,
    private readonly adminToken: string,
  ) {}

  async authenticate(address: string, credential: Credential): Promise<Verdict> {
    switch (credential.kind) {
      case 'api-key':
        return this.apiKey(address, credential.key);
      case 'account':
        return this.account(address, credential.username, credential.password);
      case 'worker':
        return this.worker(address, credential.token);
      case 'admin':
        return this.admin(address, credential.token);
    }
  }

  private async apiKey(address: string, key: string): Promise<Verdict> {
    const row = await this.identity.findApiKey(sha256(key));
    const now = new Date();
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt <= now)) return verdictOf(undefined, await this.limiter.recordFailure(failureBucket.apiKey(address)));
    this.identity.touchApiKey(row.id, row.lastUsedAt, now);
    return verdictOf({ kind: 'api-key', keyId: row.id, accountId: row.accountId, workstreamId: row.workstreamId }, undefined);
  }

  private async worker(address: string, token: string): Promise<Verdict> {
    const worker = await this.identity.findWorker(sha256(token));
    if (!worker) return verdictOf(undefined, await this.limiter.recordFailure(failureBucket.worker(address)));
    return verdictOf({ kind: 'worker', ...worker }, undefined);
  }

  private async admin(address: string, token: string): Promise<Verdict> {
    const bucket = failureBucket.admin(address);
    if (!safeEqual(token, this.adminToken)) return verdictOf(undefined, await this.limiter.recordFailure(bucket));
    return verdictOf({ kind: 'admin' }, await this.limiter.lockout(bucket));
  }

  private async account(address: string, username: string, password: string): Promise<Verdict> {
    const account = await this.identity.findAccountByUsername(username);
    const bucket = account ? failureBucket.account(address, username) : failureBucket.unknownAccount(address);
    const lockout = await this.limiter.reserve(bucket);
    if (lockout !== undefined) return verdictOf(undefined, lockout);
    if (!(await this.identity.checkPassword(password, account))) return { outcome: 'invalid' };
    await this.limiter.release(bucket);
    return verdictOf({ kind: 'account', accountId: account!.id }, undefined);
  }
}
