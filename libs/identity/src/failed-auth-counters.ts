import { Injectable } from '@nestjs/common';
import { type Pipelined, RedisScript, RedisService } from '@workline/redis';

/** A bucket's failures so far and the seconds left in its window (Redis's TTL: -2 when the bucket is empty). */
export interface BucketCount {
  count: number;
  ttl: number;
}

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

const bucketCount = (reply: unknown): BucketCount => {
  const [count, ttl] = reply as [number, number];
  return { count, ttl };
};

/**
 * The failed-authentication buckets in Redis, shared by every gateway instance: each call one script, so
 * a check and its count are atomic. FailedAuthLimiter holds the rules; a unit test gives it memory instead.
 * Each call rejects when Redis cannot answer.
 */
@Injectable()
export class FailedAuthCounters {
  constructor(private readonly redis: RedisService) {}

  /** Takes a slot of the bucket unless it holds `limit` already (its window starts with the first slot). */
  reserve(bucket: string, limit: number, windowSeconds: number): Promise<{ reserved: boolean; ttl: number }> {
    return RESERVE.run(this.redis, [bucket, limit, windowSeconds], (reply) => {
      const [reserved, ttl] = reply as [number, number];
      return { reserved: reserved === 1, ttl };
    });
  }

  release(bucket: string): Promise<void> {
    return RELEASE.run(this.redis, [bucket], () => undefined);
  }

  /** Counts a failure (its window starts with the first); the count with it. */
  record(bucket: string, windowSeconds: number): Promise<BucketCount> {
    return RECORD.run(this.redis, [bucket, windowSeconds], bucketCount);
  }

  /** Reads a bucket without counting, as a command of a shared round trip. */
  peek(bucket: string): Pipelined<BucketCount> {
    return PEEK.command(this.redis, [bucket], bucketCount);
  }
}
