import { Injectable, Logger } from '@nestjs/common';
import { RouteConfig } from '@nestjs/platform-fastify';
import { errorMessage } from '@workline/contracts';
import type { Principal } from '@workline/identity';
import { type Pipelined, RedisScript, RedisService, roundTrip } from '@workline/redis';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RoundTripRider } from '../auth/authentication';
import { OversightApiEnv } from './oversight-api.env';

/** The quota's windows, in the order the reserve script checks them (and the limits hash names its fields). */
export const QUOTA_WINDOWS = ['day', 'week', 'month'] as const;
export type QuotaWindow = (typeof QUOTA_WINDOWS)[number];
/** The windows as a Lua list's items, for the scripts that read or write the limits hash. */
export const QUOTA_WINDOWS_LUA = QUOTA_WINDOWS.map((window) => `'${window}'`).join(', ');

/** The Redis hash that holds a copy of the limits support set for a workstream (TaskQuotaLimits), read by RESERVE. */
export const quotaLimitsKey = (workstreamId: string) => `quota:tasks:limits:${workstreamId}`;

export interface QuotaRefusal {
  window: QuotaWindow;
  limit: number;
  resetsAt: Date;
}

const DAY_MS = 24 * 3600 * 1000;
const WINDOWS_COUNT = QUOTA_WINDOWS.length;
const logger = new Logger('TaskQuota');
const NOTHING_TO_RELEASE = { release: async () => undefined };

const decrement = (key: string): Pipelined<void> => ({ queue: (pipeline) => void pipeline.decr(key), read: () => undefined });

export type QuotaReservation = { refused: QuotaRefusal } | { release: () => Promise<void> };

/** A reservation made in authentication's Redis round trip, before the request reached its handler. */
interface EarlyReservation {
  workstreamId: string;
  reservation: QuotaReservation;
  /** A handler answers for it (uses or gives it back), or the response hook gave it back. */
  claimed: boolean;
}

declare module 'fastify' {
  interface FastifyRequest {
    taskQuota?: EarlyReservation;
  }
  interface FastifyContextConfig {
    /** The route creates tasks: authentication's Redis round trip reserves a unit of the workstream's quota. */
    usesTaskQuota?: boolean;
  }
}

/** Marks the route that creates tasks (its handler claims the reservation: TaskQuota.claim). */
export const UsesTaskQuota = () => RouteConfig({ usesTaskQuota: true });

/** The UTC calendar window containing `now`: its id (part of the Redis key) and when it ends. */
export function quotaWindow(window: QuotaWindow, now: Date): { id: string; endsAt: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  const d = now.getUTCDate();
  if (window === 'day') return { id: `d${now.toISOString().slice(0, 10)}`, endsAt: new Date(Date.UTC(y, m, d + 1)) };
  if (window === 'month') return { id: `m${now.toISOString().slice(0, 7)}`, endsAt: new Date(Date.UTC(y, m + 1, 1)) };
  // ISO weeks start on Monday.
  const monday = new Date(Date.UTC(y, m, d) - ((now.getUTCDay() + 6) % 7) * DAY_MS);
  return { id: `w${monday.toISOString().slice(0, 10)}`, endsAt: new Date(monday.getTime() + 7 * DAY_MS) };
}

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
  WINDOWS_COUNT + 1,
);

/** A window's count key: one per workstream and calendar window. */
const counterKey = (workstreamId: string, windowId: string) => `quota:tasks:${workstreamId}:${windowId}`;

/** Every window as it stands at `now`: its id and end. */
const windowsAt = (now: Date) => QUOTA_WINDOWS.map((window) => ({ window, ...quotaWindow(window, now) }));

/** A window's current count and end, for a quota's reader; `used` is null when Redis cannot answer. */
export interface QuotaUsage {
  window: QuotaWindow;
  used: number | null;
  resetsAt: Date;
}

/**
 * Task-creation quota per workstream (spec "Limits": per day, week or month; support may set a workstream's
 * own limits: TaskQuotaLimits). A creation is counted
 * before it is attempted and given back when it fails, so refused requests never use up the quota.
 * Like the rate limits, it fails open: when Redis cannot answer, the creation is allowed and not counted
 * (docs/decisions.md, "Redis outages").
 *
 * For a workstream's API key it is counted in authentication's Redis round trip (a rider: one round trip
 * per task creation, issue 13), and given back when the request is answered without its handler taking it (a
 * body refused with 400, 413 or 415, a rate limit's 429, a credential revoked since it was cached) or abandoned.
 */
@Injectable()
export class TaskQuota implements RoundTripRider {
  constructor(
    private readonly redis: RedisService,
    private readonly env: OversightApiEnv,
  ) {}

  /** The gateway's limit of each window (TASK_QUOTA_PER_*), where support set none for a workstream. */
  defaultLimit(window: QuotaWindow): number {
    return { day: this.env.TASK_QUOTA_PER_DAY, week: this.env.TASK_QUOTA_PER_WEEK, month: this.env.TASK_QUOTA_PER_MONTH }[window];
  }

  /** Counts one creation, as a command of a shared round trip: the refusal when a window is full, else a way to give it back. */
  private reservation(workstreamId: string, now = new Date()): Pipelined<QuotaReservation> {
    const windows = windowsAt(now);
    const keys = windows.map((w) => counterKey(workstreamId, w.id));
    const args = windows.flatMap((w) => [this.defaultLimit(w.window), Math.ceil((w.endsAt.getTime() - now.getTime()) / 1000) + 3600]);
    return RESERVE.command(this.redis, [...keys, quotaLimitsKey(workstreamId), ...args], (reply): QuotaReservation => {
      const [full, limit] = (reply as [number, number]).map(Number);
      if (full > 0) {
        const { window, endsAt } = windows[full - 1];
        return { refused: { window, limit, resetsAt: endsAt } };
      }
      return {
        // One round trip for every window's counter (commands sent alone would cost one each). Without Redis the
        // creation stays counted until its window ends: a refund lost, never a quota exceeded.
        release: async () => {
          await roundTrip(this.redis, ...keys.map(decrement)).catch(() => undefined);
        },
      };
    });
  }

  /** Counts one creation in a round trip of its own; returns the refusal when a window is full, else a function that gives it back. */
  async reserve(workstreamId: string, now = new Date()): Promise<QuotaReservation> {
    try {
      const [reservation] = await roundTrip(this.redis, this.reservation(workstreamId, now));
      return reservation;
    } catch (error) {
      logger.warn(`task quota not checked (Redis cannot answer: ${errorMessage(error)}): creation allowed`);
      return NOTHING_TO_RELEASE;
    }
  }

  /** What each window of a workstream has counted so far, and when it ends. */
  async usage(workstreamId: string, now = new Date()): Promise<QuotaUsage[]> {
    const windows = windowsAt(now);
    const counts = await this.redis.mget(windows.map((w) => counterKey(workstreamId, w.id))).catch((error: unknown) => {
      logger.warn(`task quota usage not read (Redis cannot answer: ${errorMessage(error)})`);
      return undefined;
    });
    return windows.map(({ window, endsAt }, i) => ({ window, used: counts ? Number(counts[i] ?? 0) : null, resetsAt: endsAt }));
  }

  /** The reservation counted with the request's authentication (the caller's now, to use or give back), else a new one. */
  async claim(request: FastifyRequest, workstreamId: string): Promise<QuotaReservation> {
    const early = request.taskQuota;
    if (early && !early.claimed && early.workstreamId === workstreamId) {
      early.claimed = true;
      return early.reservation;
    }
    return this.reserve(workstreamId);
  }

  wants(request: FastifyRequest): boolean {
    return request.routeOptions.config?.usesTaskQuota === true;
  }

  command(request: FastifyRequest, principal: Principal): Pipelined<void> | undefined {
    if (principal.kind !== 'api-key' || !principal.workstreamId) return undefined;
    const workstreamId = principal.workstreamId;
    const reservation = this.reservation(workstreamId);
    return {
      queue: reservation.queue,
      read: (reply) => {
        request.taskQuota = { workstreamId, reservation: reservation.read(reply), claimed: false };
      },
    };
  }

  /**
   * Gives back what was counted with the authentication of a request that is answered (or abandoned) without
   * its handler having claimed it, before the answer leaves: a client told 400 or 429 finds its quota as it was.
   */
  install(fastify: FastifyInstance): void {
    fastify.decorateRequest('taskQuota', undefined);
    const giveBack = async (request: FastifyRequest) => {
      const early = request.taskQuota;
      if (!early || early.claimed) return;
      early.claimed = true;
      if ('release' in early.reservation) await early.reservation.release();
    };
    fastify.addHook('onSend', async (request, _reply, payload) => {
      await giveBack(request);
      return payload;
    });
    fastify.addHook('onRequestAbort', giveBack);
  }
}
