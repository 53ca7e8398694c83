import { Injectable } from '@nestjs/common';
import { type Pipelined, RedisScript, RedisService, roundTrip } from '@workline/redis';
import { QUOTA_WINDOWS } from './quota-windows';

/** The windows as a Lua list's items, for the scripts that read or write the limits hash. */
const QUOTA_WINDOWS_LUA = QUOTA_WINDOWS.map((window) => `'${window}'`).join(', ');

/**
 * Checks every window against its limit (support's, from the workstream's limits hash, else the default
 * passed in), and counts in all of them only when none is full (atomic in Redis). Answers the full
 * window's number and limit, or {0, 0} when it counted.
 */
const RESERVE = new RedisScript(
  'taskQuotaReserve',
  `
local counters = #KEYS - 1
local custom = redis.call('HMGET', KEYS[#KEYS], ${QUOTA_WINDOWS_LUA})
for i = 1, counters do
  local limit = tonumber(custom[i]) or tonumber(ARGV[2 * i - 1])
  if tonumber(redis.call('GET', KEYS[i]) or '0') >= limit then return {i, limit} end
end
for i = 1, counters do
  redis.call('INCR', KEYS[i])
  redis.call('EXPIRE', KEYS[i], ARGV[2 * i])
end
return {0, 0}`,
  QUOTA_WINDOWS.length + 1,
);

/**
 * Replaces the copy of a workstream's limits unless Redis holds a newer version already (another gateway
 * wrote a later change while this one was reading an older row).
 */
const WRITE_LIMITS = new RedisScript(
  'taskQuotaLimitsWrite',
  `
if tonumber(redis.call('HGET', KEYS[1], 'version') or '0') > tonumber(ARGV[1]) then return 0 end
redis.call('DEL', KEYS[1])
redis.call('HSET', KEYS[1], 'version', ARGV[1])
local windows = {${QUOTA_WINDOWS_LUA}}
for i = 1, #windows do
  if ARGV[i + 1] ~= '' then redis.call('HSET', KEYS[1], windows[i], ARGV[i + 1]) end
end
return 1`,
);

const decrement = (key: string): Pipelined<void> => ({ queue: (pipeline) => void pipeline.decr(key), read: () => undefined });

/** One window of a reservation: its count key, the default limit and how long its count is kept. */
export interface CountedWindow {
  counterKey: string;
  defaultLimit: number;
  ttlSeconds: number;
}

/**
 * The quota's counters and the copies of support's limits in Redis, shared by every gateway: each call one
 * script or command, so a check and its count are atomic. TaskQuota and TaskQuotaLimits hold the rules; a
 * unit test gives them memory instead. Calls reject when Redis cannot answer.
 */
@Injectable()
export class TaskQuotaCounters {
  constructor(private readonly redis: RedisService) {}

  /**
   * Counts one creation in every window unless one is full (its limit: the copy of support's in `limitsKey`,
   * else its default), as a command of a shared round trip: the 1-based full window and its limit, or 0.
   */
  reserve(windows: CountedWindow[], limitsKey: string): Pipelined<{ full: number; limit: number }> {
    const keys = windows.map((window) => window.counterKey);
    const args = windows.flatMap((window) => [window.defaultLimit, window.ttlSeconds]);
    return RESERVE.command(this.redis, [...keys, limitsKey, ...args], (reply) => {
      const [full, limit] = (reply as [number, number]).map(Number);
      return { full, limit };
    });
  }

  /**
   * Takes one back from each count in one round trip (commands sent alone would cost one each); nothing while
   * Redis is not connected (a refund lost, never a quota exceeded).
   */
  async giveBack(counterKeys: string[]): Promise<void> {
    if (this.redis.status !== 'ready') return;
    await roundTrip(this.redis, ...counterKeys.map(decrement));
  }

  /** The counts as they stand (0 for a window that counted nothing). */
  async counts(counterKeys: string[]): Promise<number[]> {
    const counts = await this.redis.mget(counterKeys);
    return counts.map((count) => Number(count ?? 0));
  }

  /** Writes a copy of a workstream's limits (null: the default) unless Redis holds a newer version. */
  writeLimits(limitsKey: string, version: number, limits: (number | null)[]): Pipelined<unknown> {
    return WRITE_LIMITS.command(this.redis, [limitsKey, version, ...limits.map((limit) => limit ?? '')], (reply) => reply);
  }

  send(...commands: Pipelined<unknown>[]): Promise<unknown[]> {
    return roundTrip(this.redis, ...commands);
  }
}
