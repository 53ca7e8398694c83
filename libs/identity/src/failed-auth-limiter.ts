import { Injectable } from '@nestjs/common';
import { DomainError } from '@workline/contracts';
import { type Pipelined, RedisScript, RedisService, roundTrip } from '@workline/redis';

export interface FailedAuthPolicy {
  /** Failed authentications one bucket may hold per window before it is refused. */
  limit: number;
  windowSeconds: number;
}

/**
 * Who a failure is counted against (docs/decisions.md, "Failed authentications"): the client address and,
 * for a password, the account the username names, so an attacker guessing one account's password locks
 * that account out from that address and nobody else. Unknown usernames share the address's bucket.
 * High-entropy credentials (API keys, worker tokens) and the admin token each have a bucket per address.
 */
export const failureBucket = {
  account: (address: string, username: string) => `auth-failures:account:${address}:${username}`,
  unknownAccount: (address: string) => `auth-failures:basic:${address}`,
  apiKey: (address: string) => `auth-failures:api-key:${address}`,
  worker: (address: string) => `auth-failures:worker:${address}`,
  admin: (address: string) => `auth-failures:admin:${address}`,
};

/** 0 = refused (the bucket is full), 1 = a slot was taken; then the seconds left in the window. */
const RESERVE = new RedisScript(
  'authFailureReserve',
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
local ttl = redis.call('TTL', KEYS[1])
if count >= tonumber(ARGV[1]) then return {0, ttl} end
redis.call('INCR', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[2])
  ttl = tonumber(ARGV[2])
end
return {1, ttl}
`,
);

/** Gives a reserved slot back (the credential was right); never below 0, and nothing once the window ended. */
const RELEASE = new RedisScript(
  'authFailureRelease',
  `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count > 0 then redis.call('DECR', KEYS[1]) end
return 0
`,
);

/** Counts one failure; returns the count and the seconds left in the window. */
const RECORD = new RedisScript(
  'authFailureRecord',
  `
local count = redis.call('INCR', KEYS[1])
local ttl = redis.call('TTL', KEYS[1])
if ttl < 0 then
  redis.call('EXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`,
);

const PEEK = new RedisScript(
  'authFailurePeek',
  `
return {tonumber(redis.call('GET', KEYS[1]) or '0'), redis.call('TTL', KEYS[1])}
`,
);

/** Undefined while the bucket has room, else the seconds until its window ends. */
export type Lockout = number | undefined;

/**
 * Slows down guessing of passwords and tokens. Counters live in Redis, so every gateway instance shares
 * them; a Redis outage lets every check pass (authentication itself never depends on Redis).
 *
 * Check-and-count is atomic: an expensive check (a password's scrypt) first reserves a slot in its bucket
 * with one script that refuses at the limit, and a right password gives the slot back. However many bad
 * attempts arrive at once, at most `limit` of them per window get as far as the check.
 */
@Injectable()
export class FailedAuthLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly policy: FailedAuthPolicy,
  ) {}

  /** Takes a slot before an expensive check; the lockout when the bucket is full. */
  async reserve(bucket: string): Promise<Lockout> {
    try {
      return await RESERVE.run(this.redis, [bucket, this.policy.limit, this.policy.windowSeconds], (reply) => {
        const [reserved, ttl] = reply as [number, number];
        return reserved === 1 ? undefined : this.retryAfter(ttl);
      });
    } catch {
      return undefined;
    }
  }

  async release(bucket: string): Promise<void> {
    await RELEASE.run(this.redis, [bucket], () => undefined).catch(() => undefined);
  }

  /** Counts a failure of a cheap check; the lockout when this failure is past the limit. */
  async recordFailure(bucket: string): Promise<Lockout> {
    try {
      return await RECORD.run(this.redis, [bucket, this.policy.windowSeconds], (reply) => {
        const [count, ttl] = reply as [number, number];
        return count > this.policy.limit ? this.retryAfter(ttl) : undefined;
      });
    } catch {
      return undefined;
    }
  }

  /** Reads a bucket without counting (for a right credential that must still respect a lockout). */
  peek(bucket: string): Pipelined<Lockout> {
    return PEEK.command(this.redis, [bucket], (reply) => {
      const [count, ttl] = reply as [number, number];
      return count >= this.policy.limit ? this.retryAfter(ttl) : undefined;
    });
  }

  async lockout(bucket: string): Promise<Lockout> {
    try {
      const [lockout] = await roundTrip(this.redis, this.peek(bucket));
      return lockout;
    } catch {
      return undefined;
    }
  }

  lockedOut(retryAfter: number): DomainError {
    return DomainError.tooManyRequests(`Too many failed authentications from this address; retry in ${retryAfter} s`, retryAfter);
  }

  private retryAfter(ttl: number): number {
    return Math.max(1, ttl > 0 ? ttl : this.policy.windowSeconds);
  }
}
