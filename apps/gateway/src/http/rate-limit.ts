import { randomUUID } from 'node:crypto';
import { HttpStatus } from '@nestjs/common';
import { type Pipelined, RedisScript, type RedisService, roundTrip } from '@workline/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { type ApiGroup, writeProblem } from './problem';

export const RATE_LIMIT_WINDOW_MS = 60_000;

/** Requests per minute per credential for each API group; 0 switches the group's limit off. */
export type RateLimitPolicy = Partial<Record<ApiGroup, number>>;

export interface WindowState {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the oldest counted request leaves the window (a slot frees up). */
  resetSeconds: number;
}

/**
 * Sliding-window log: one sorted set per credential and group, scored by arrival time. Refused requests
 * are not recorded, so a client that backs off gets its budget back as its earlier requests age out.
 * One script keeps the check and the insert atomic across gateway instances.
 */
const SLIDING_WINDOW = `
local key = KEYS[1]
local now = tonumber(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
local count = redis.call('ZCARD', key)
local allowed = 0
if count < limit then
  redis.call('ZADD', key, now, ARGV[4])
  count = count + 1
  allowed = 1
end
redis.call('PEXPIRE', key, window)
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
return {allowed, count, oldest[2] or tostring(now)}
`;

/**
 * Who is counted: the verified principal (`principalSubject`: an API key, an account, a worker, the admin),
 * so re-spelling a credential's header cannot open a fresh budget; a request without a valid credential is
 * counted against its client address.
 */
export const addressSubject = (address: string) => `address:${address}`;

export function windowState(allowed: boolean, limit: number, count: number, oldestMs: number, nowMs: number): WindowState {
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetSeconds: Math.max(1, Math.ceil((oldestMs + RATE_LIMIT_WINDOW_MS - nowMs) / 1000)),
  };
}

const SLIDING_WINDOW_SCRIPT = new RedisScript('rateLimitTake', SLIDING_WINDOW);

export class RateLimiter {
  constructor(
    private readonly redis: RedisService,
    private readonly policy: RateLimitPolicy,
  ) {}

  limitOf(group: ApiGroup): number {
    return this.policy[group] ?? 0;
  }

  /** Counts one request, as a command of a shared round trip; undefined when the group is unlimited. */
  command(group: ApiGroup, subject: string): Pipelined<WindowState> | undefined {
    const limit = this.limitOf(group);
    if (limit <= 0) return undefined;
    const now = Date.now();
    return SLIDING_WINDOW_SCRIPT.command(
      this.redis,
      [`rate-limit:${group}:${subject}`, now, RATE_LIMIT_WINDOW_MS, limit, `${now}-${randomUUID()}`],
      (reply) => {
        // A reply of another shape is a fault of ours, not a client's excess: thrown, it reads as Redis unavailable (fail open).
        if (!Array.isArray(reply) || reply.length !== 3) throw new Error(`rate limit script gave ${JSON.stringify(reply)}`);
        const [allowed, count, oldest] = reply as [number, number, string];
        return windowState(allowed === 1, limit, count, Number(oldest), now);
      },
    );
  }

  /** Counts one request; undefined when the group is unlimited or Redis cannot answer (fail open). */
  async take(group: ApiGroup, subject: string): Promise<WindowState | undefined> {
    const command = this.command(group, subject);
    if (!command) return undefined;
    try {
      const [state] = await roundTrip(this.redis, command);
      return state;
    } catch {
      // Redis holds only what may be lost: without it requests are served unlimited rather than refused.
      return undefined;
    }
  }

  /** Sets the limit headers; answers 429 and returns false when the request is over the limit. */
  admit(request: FastifyRequest, reply: FastifyReply, state: WindowState | undefined): boolean {
    if (!state) return true;
    reply.headers({
      'X-RateLimit-Limit': String(state.limit),
      'X-RateLimit-Remaining': String(state.remaining),
      'X-RateLimit-Reset': String(state.resetSeconds),
    });
    if (state.allowed) return true;
    writeProblem(request, reply, {
      status: HttpStatus.TOO_MANY_REQUESTS,
      message: `Rate limit of ${state.limit} requests per minute exceeded; retry in ${state.resetSeconds} s`,
      headers: { 'Retry-After': String(state.resetSeconds) },
    });
    return false;
  }
}
