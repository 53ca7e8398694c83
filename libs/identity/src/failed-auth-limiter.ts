import { Injectable } from '@nestjs/common';
import { DomainError } from '@workline/contracts';
import { RedisService } from '@workline/redis';

export interface FailedAuthPolicy {
  /** Failed authentications one source may make per window before it is refused. */
  limit: number;
  windowSeconds: number;
}

/**
 * Slows down guessing of API keys, passwords and tokens: a source (client IP) with too many failed
 * authentications in a window gets 429 with Retry-After on every credential check until the window ends,
 * even with a correct credential. Counters live in Redis, so every gateway instance shares them; a lost
 * Redis only resets the windows (authentication itself never depends on it).
 */
@Injectable()
export class FailedAuthLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly policy: FailedAuthPolicy,
  ) {}

  private key(source: string): string {
    return `auth-failures:${source}`;
  }

  /** Throws 429 when `source` is over the limit. A Redis outage lets the check pass. */
  async assertAllowed(source: string): Promise<void> {
    let failures = 0;
    let ttl = 0;
    try {
      const [[, count], [, remaining]] = (await this.redis.multi().get(this.key(source)).ttl(this.key(source)).exec()) as [[unknown, string | null], [unknown, number]];
      failures = Number(count ?? 0);
      ttl = remaining;
    } catch {
      return;
    }
    if (failures >= this.policy.limit) {
      const retryAfter = Math.max(1, ttl > 0 ? ttl : this.policy.windowSeconds);
      throw DomainError.tooManyRequests(`Too many failed authentications from this address; retry in ${retryAfter} s`, retryAfter);
    }
  }

  async recordFailure(source: string): Promise<void> {
    try {
      const [[, count]] = (await this.redis.multi().incr(this.key(source)).ttl(this.key(source)).exec()) as [[unknown, number], [unknown, number]];
      if (count === 1) await this.redis.expire(this.key(source), this.policy.windowSeconds);
    } catch {
      /* Redis down: nothing to count with */
    }
  }
}
