import { Injectable } from '@nestjs/common';
import type { PublicSurface } from '@workline/db';
import type { Pipelined } from '@workline/redis';
import { safeEqual, sha256 } from '@workline/secrets';
import { createHmac, randomBytes } from 'node:crypto';
import type { AuthenticationRoundTrip } from './authentication-round-trip';
import { failureBucket, FailedAuthLimiter, type Lockout } from './failed-auth-limiter';
import type { IdentityEpoch } from './identity-epoch';
import { IdentityService } from './identity.service';

/** Who is calling, once a credential has been verified. */
export type Principal =
  | {
      kind: 'api-key';
      keyId: string;
      accountId: string;
      workstreamId: string | null;
      /** The key itself as stored, sealed (SecretBox): a task keeps it to sign its webhooks, with no seal per request. */
      sealedKey: string;
    }
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

/**
 * A verdict, and the reply of the caller's own command (e.g. the rate-limit take) when it could travel in
 * the same Redis round trip, which it can on a cache hit: it was queued for the cached principal.
 */
export interface Checked<T> {
  verdict: Verdict;
  alongside?: T;
}

/** A command the caller wants sent in authentication's round trip, for the (cached) principal. */
export type Alongside<T> = (principal: Principal) => Pipelined<T> | undefined;

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
  lockout !== undefined
    ? { outcome: 'locked', retryAfter: lockout }
    : principal
      ? { outcome: 'verified', principal }
      : { outcome: 'invalid' };

/** Principals verified by this instance, each with the identity epoch read before it was looked up. */
interface CachedPrincipal {
  principal: Principal;
  epoch: string;
}
interface CachedApiKey extends CachedPrincipal {
  keyId: string;
  expiresAtMs: number | null;
  lastUsedAt: Date | null;
}
interface CachedLogin extends CachedPrincipal {
  /** The hash this username and password were verified against: a reset changes it. */
  passwordHash: string;
}

const CACHE_SIZE = 10_000;

/** A map that forgets its oldest entry past `CACHE_SIZE` (a flood of distinct credentials cannot grow it). */
class BoundedCache<V> extends Map<string, V> {
  override set(key: string, value: V): this {
    if (!this.has(key) && this.size >= CACHE_SIZE) this.delete(this.keys().next().value!);
    return super.set(key, value);
  }
}

/**
 * Verifies credentials under the failed-authentication limits (docs/decisions.md, "Failed authentications"):
 * - a password (HTTP Basic) is a guessable secret: its check (scrypt) reserves a slot of the bucket of the
 *   address and the account it names first, so at most `limit` checks run per window and bucket however
 *   many attempts arrive at once, and a full bucket refuses even the right password;
 * - API keys and worker tokens are 192-bit random values that cannot be guessed: a right one is always
 *   accepted, a wrong one is counted per address and answered 429 past the limit;
 * - the admin token is chosen by an operator and may be guessable: like a password, but per address.
 *
 * Verified principals are cached in-process (docs/decisions.md, "Cached principals"): a hit costs one Redis
 * round trip, which reads the identity epoch, checks the failed-auth bucket when one applies and carries the
 * caller's own command; a changed epoch (a revocation, rotation or password reset anywhere) sends every
 * entry back to PostgreSQL once.
 */
@Injectable()
export class Authenticator {
  private readonly apiKeys = new BoundedCache<CachedApiKey>();
  private readonly workers = new BoundedCache<CachedPrincipal>();
  private readonly logins = new BoundedCache<CachedLogin>();
  /** Password checks under way, by address and login, with the epoch they started at (concurrent logins share one). */
  private readonly loginsUnderWay = new Map<string, { epoch: string | undefined; verdict: Promise<Verdict> }>();
  /** Logins are cached under an HMAC with a per-process key, never under the password. */
  private readonly loginKey = randomBytes(32);

  constructor(
    private readonly identity: IdentityService,
    private readonly limiter: FailedAuthLimiter,
    private readonly epoch: PublicSurface<IdentityEpoch>,
    private readonly roundTrip: PublicSurface<AuthenticationRoundTrip>,
    private readonly adminToken: string,
  ) {}

  async authenticate<T = never>(address: string, credential: Credential, alongside?: Alongside<T>): Promise<Checked<T>> {
    switch (credential.kind) {
      case 'api-key':
        return this.apiKey(address, credential.key, alongside);
      case 'account':
        return this.login(address, credential.username, credential.password, alongside);
      case 'worker':
        return this.worker(address, credential.token, alongside);
      case 'admin':
        return this.admin(address, credential.token, alongside);
    }
  }

  /**
   * One round trip: the epoch, then `commands`. Without Redis the epoch is undefined, so no cached
   * entry is trusted and nothing new is cached (authentication goes to PostgreSQL; limits fail open).
   */
  private async withEpoch(...commands: (Pipelined<unknown> | undefined)[]): Promise<{ epoch?: string; replies: unknown[] }> {
    const queued = commands.filter((command): command is Pipelined<unknown> => command !== undefined);
    try {
      const [epoch, ...replies] = (await this.roundTrip.send(this.epoch.read(), ...queued)) as [string, ...unknown[]];
      return { epoch, replies: commands.map((command) => (command ? replies.shift() : undefined)) };
    } catch {
      return { replies: [] };
    }
  }

  private async apiKey<T>(address: string, key: string, alongside?: Alongside<T>): Promise<Checked<T>> {
    const hash = sha256(key);
    const now = Date.now();
    const cached = this.apiKeys.get(hash);
    const usable = cached && (cached.expiresAtMs === null || cached.expiresAtMs > now) ? cached : undefined;
    const { epoch, replies } = await this.withEpoch(usable && alongside?.(usable.principal));
    if (usable && epoch === usable.epoch) {
      if (this.identity.touchApiKey(usable.keyId, usable.lastUsedAt, new Date(now))) usable.lastUsedAt = new Date(now);
      return { verdict: verdictOf(usable.principal, undefined), alongside: replies[0] as T | undefined };
    }
    const row = await this.identity.findApiKey(hash);
    if (!row || row.revokedAt || (row.expiresAt && row.expiresAt.getTime() <= now)) {
      this.apiKeys.delete(hash);
      return { verdict: verdictOf(undefined, await this.limiter.recordFailure(failureBucket.apiKey(address))) };
    }
    const principal: Principal = {
      kind: 'api-key',
      keyId: row.id,
      accountId: row.accountId,
      workstreamId: row.workstreamId,
      sealedKey: row.keyCiphertext,
    };
    const lastUsedAt = this.identity.touchApiKey(row.id, row.lastUsedAt, new Date(now)) ? new Date(now) : row.lastUsedAt;
    if (epoch !== undefined)
      this.apiKeys.set(hash, { principal, keyId: row.id, epoch, expiresAtMs: row.expiresAt?.getTime() ?? null, lastUsedAt });
    return { verdict: verdictOf(principal, undefined), alongside: this.sameSubject(usable, principal, replies[0] as T | undefined) };
  }

  private async worker<T>(address: string, token: string, alongside?: Alongside<T>): Promise<Checked<T>> {
    const hash = sha256(token);
    const cached = this.workers.get(hash);
    const { epoch, replies } = await this.withEpoch(cached && alongside?.(cached.principal));
    if (cached && epoch === cached.epoch)
      return { verdict: verdictOf(cached.principal, undefined), alongside: replies[0] as T | undefined };
    const worker = await this.identity.findWorker(hash);
    if (!worker) {
      this.workers.delete(hash);
      return { verdict: verdictOf(undefined, await this.limiter.recordFailure(failureBucket.worker(address))) };
    }
    const principal: Principal = { kind: 'worker', ...worker };
    if (epoch !== undefined) this.workers.set(hash, { principal, epoch });
    return { verdict: verdictOf(principal, undefined), alongside: this.sameSubject(cached, principal, replies[0] as T | undefined) };
  }

  private async admin<T>(address: string, token: string, alongside?: Alongside<T>): Promise<Checked<T>> {
    const bucket = failureBucket.admin(address);
    if (!safeEqual(token, this.adminToken)) return { verdict: verdictOf(undefined, await this.limiter.recordFailure(bucket)) };
    const principal: Principal = { kind: 'admin' };
    const command = alongside?.(principal);
    try {
      const [lockout, reply] = (await this.roundTrip.send(this.limiter.peek(bucket), ...(command ? [command] : []))) as [
        Lockout,
        T | undefined,
      ];
      return { verdict: verdictOf(principal, lockout), alongside: reply };
    } catch {
      return { verdict: verdictOf(principal, undefined) };
    }
  }

  private async login<T>(address: string, username: string, password: string, alongside?: Alongside<T>): Promise<Checked<T>> {
    const cacheKey = createHmac('sha256', this.loginKey).update(`${username}\0${password}`).digest('base64');
    const cached = this.logins.get(cacheKey);
    const bucket = failureBucket.account(address, username);
    const { epoch, replies } = await this.withEpoch(cached && this.limiter.peek(bucket), cached && alongside?.(cached.principal));
    const lockout = replies[0] as Lockout;
    // A full bucket refuses even a cached right password: answering it would tell a guesser which guess was right.
    if (lockout !== undefined) return { verdict: verdictOf(undefined, lockout) };
    if (cached && epoch === cached.epoch)
      return { verdict: verdictOf(cached.principal, undefined), alongside: replies[1] as T | undefined };
    const underWayKey = `${address}\0${cacheKey}`;
    const underWay = this.loginsUnderWay.get(underWayKey);
    // Join a check under way only if it started at this epoch: one started before a reset must not answer for a request that came after it.
    if (underWay && underWay.epoch === epoch && epoch !== undefined) return { verdict: await underWay.verdict };
    const verdict = this.checkLogin(address, username, password, cacheKey, cached, epoch).finally(() => {
      if (this.loginsUnderWay.get(underWayKey)?.verdict === verdict) this.loginsUnderWay.delete(underWayKey);
    });
    this.loginsUnderWay.set(underWayKey, { epoch, verdict });
    const checked = await verdict;
    return {
      verdict: checked,
      alongside: checked.outcome === 'verified' ? this.sameSubject(cached, checked.principal, replies[1] as T | undefined) : undefined,
    };
  }

  private async checkLogin(
    address: string,
    username: string,
    password: string,
    cacheKey: string,
    cached: CachedLogin | undefined,
    epoch: string | undefined,
  ): Promise<Verdict> {
    const account = await this.identity.findAccountByUsername(username);
    const bucket = account ? failureBucket.account(address, username) : failureBucket.unknownAccount(address);
    const lockout = await this.limiter.reserve(bucket);
    if (lockout !== undefined) return verdictOf(undefined, lockout);
    // A pair this instance verified against the account's current hash needs no second scrypt.
    const right =
      account !== undefined && cached?.passwordHash === account.passwordHash ? true : await this.identity.checkPassword(password, account);
    if (!right || !account) {
      this.logins.delete(cacheKey);
      return { outcome: 'invalid' };
    }
    await this.limiter.release(bucket);
    const principal: Principal = { kind: 'account', accountId: account.id };
    if (epoch !== undefined) this.logins.set(cacheKey, { principal, epoch, passwordHash: account.passwordHash });
    return verdictOf(principal, undefined);
  }

  /** The reply of a command queued for the stale entry's subject counts only if the principal is still that one. */
  private sameSubject<T>(stale: CachedPrincipal | undefined, principal: Principal, reply: T | undefined): T | undefined {
    return stale && principalSubject(stale.principal) === principalSubject(principal) ? reply : undefined;
  }
}
