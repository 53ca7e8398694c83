import { Injectable } from '@nestjs/common';
import { DomainError } from '@workline/contracts';
import type { PublicSurface } from '@workline/db';
import type { Pipelined } from '@workline/redis';
import { FailedAuthCounters } from './failed-auth-counters';

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

/** Undefined while the bucket has room, else the seconds until its window ends. */
export type Lockout = number | undefined;

/**
 * Slows down guessing of passwords and tokens. Counters live in Redis (FailedAuthCounters), so every
 * gateway instance shares them; a Redis outage lets every check pass (authentication itself never depends
 * on Redis).
 *
 * Check-and-count is atomic: an expensive check (a password's scrypt) first reserves a slot in its bucket
 * with one script that refuses at the limit, and a right password gives the slot back. However many bad
 * attempts arrive at once, at most `limit` of them per window get as far as the check.
 */
@Injectable()
export class FailedAuthLimiter {
  constructor(
    private readonly counters: PublicSurface<FailedAuthCounters>,
    private readonly policy: FailedAuthPolicy,
  ) {}

  /** Takes a slot before an expensive check; the lockout when the bucket is full. */
  async reserve(bucket: string): Promise<Lockout> {
    try {
      const { reserved, ttl } = await this.counters.reserve(bucket, this.policy.limit, this.policy.windowSeconds);
      return reserved ? undefined : this.retryAfter(ttl);
    } catch {
      return undefined;
    }
  }

  async release(bucket: string): Promise<void> {
    await this.counters.release(bucket).catch(() => undefined);
  }

  /** Counts a failure of a cheap check; the lockout when this failure is past the limit. */
  async recordFailure(bucket: string): Promise<Lockout> {
    try {
      const { count, ttl } = await this.counters.record(bucket, this.policy.windowSeconds);
      return count > this.policy.limit ? this.retryAfter(ttl) : undefined;
    } catch {
      return undefined;
    }
  }

  /** Reads a bucket without counting (for a right credential that must still respect a lockout). */
  peek(bucket: string): Pipelined<Lockout> {
    const command = this.counters.peek(bucket);
    return {
      queue: command.queue,
      read: (reply) => {
        const { count, ttl } = command.read(reply);
        return count >= this.policy.limit ? this.retryAfter(ttl) : undefined;
      },
    };
  }

  lockedOut(retryAfter: number): DomainError {
    return DomainError.tooManyRequests(`Too many failed authentications from this address; retry in ${retryAfter} s`, retryAfter);
  }

  private retryAfter(ttl: number): number {
    return Math.max(1, ttl > 0 ? ttl : this.policy.windowSeconds);
  }
}
