import { Inject, Injectable, Logger } from '@nestjs/common';
import { errorMessage, type TaskQuotaAnswer } from '@workline/contracts';
import type { PublicSurface } from '@workline/db';
import type { Pipelined } from '@workline/redis';
import { quotaCounterKey, quotaLimitsKey, type QuotaWindow, windowsAt } from './quota-windows';
import { TaskQuotaCounters } from './task-quota-counters';
import type { QuotaLimits } from './task-quota-limits';
import { TASK_QUOTA_POLICY, type TaskQuotaPolicy } from './task-quota.policy';

export interface QuotaRefusal {
  window: QuotaWindow;
  limit: number;
  resetsAt: Date;
}

export type QuotaReservation = { refused: QuotaRefusal } | { release: () => Promise<void> };

/** A window's current count and end, for a quota's reader; `used` is null when Redis cannot answer. */
export interface QuotaUsage {
  window: QuotaWindow;
  used: number | null;
  resetsAt: Date;
}

/** A window's count outlives the window by this much (a clock a little behind still finds it). */
const COUNT_KEPT_PAST_WINDOW_SECONDS = 3600;

const logger = new Logger('TaskQuota');
const NOTHING_TO_RELEASE = { release: async () => undefined };

/**
 * Task-creation quota per workstream (spec "Limits": per day, week or month; support may set a workstream's
 * own limits: TaskQuotaLimits). A creation is counted before it is attempted and given back when it fails,
 * so refused requests never use up the quota. Like the rate limits, it fails open: when Redis cannot answer,
 * the creation is allowed and not counted (docs/decisions.md, "Redis outages").
 *
 * The gateway counts a workstream API key's creation in authentication's Redis round trip (its
 * TaskQuotaRider sends `reservation`: one round trip per task creation, issue 13).
 */
@Injectable()
export class TaskQuota {
  constructor(
    @Inject(TaskQuotaCounters) private readonly counters: PublicSurface<TaskQuotaCounters>,
    @Inject(TASK_QUOTA_POLICY) private readonly policy: TaskQuotaPolicy,
  ) {}

  /** The gateway's limit of each window (TASK_QUOTA_PER_*), where support set none for a workstream. */
  defaultLimit(window: QuotaWindow): number {
    return this.policy.defaultLimits[window];
  }

  /** Counts one creation, as a command of a shared round trip: the refusal when a window is full, else a way to give it back. */
  reservation(workstreamId: string, now = new Date()): Pipelined<QuotaReservation> {
    const windows = windowsAt(now);
    const keys = windows.map((w) => quotaCounterKey(workstreamId, w.id));
    const command = this.counters.reserve(
      windows.map((w, i) => ({
        counterKey: keys[i],
        defaultLimit: this.defaultLimit(w.window),
        ttlSeconds: Math.ceil((w.endsAt.getTime() - now.getTime()) / 1000) + COUNT_KEPT_PAST_WINDOW_SECONDS,
      })),
      quotaLimitsKey(workstreamId),
    );
    return {
      queue: command.queue,
      read: (reply): QuotaReservation => {
        const { full, limit } = command.read(reply);
        if (full > 0) {
          const { window, endsAt } = windows[full - 1];
          return { refused: { window, limit, resetsAt: endsAt } };
        }
        // Without Redis the creation stays counted until its window ends: a refund lost, never a quota exceeded.
        return { release: () => this.counters.giveBack(keys).catch(() => undefined) };
      },
    };
  }

  /** Counts one creation in a round trip of its own; returns the refusal when a window is full, else a function that gives it back. */
  async reserve(workstreamId: string, now = new Date()): Promise<QuotaReservation> {
    try {
      const [reservation] = (await this.counters.send(this.reservation(workstreamId, now))) as [QuotaReservation];
      return reservation;
    } catch (error) {
      logger.warn(`task quota not checked (Redis cannot answer: ${errorMessage(error)}): creation allowed`);
      return NOTHING_TO_RELEASE;
    }
  }

  /** What each window of a workstream has counted so far, and when it ends. */
  async usage(workstreamId: string, now = new Date()): Promise<QuotaUsage[]> {
    const windows = windowsAt(now);
    const counts = await this.counters.counts(windows.map((w) => quotaCounterKey(workstreamId, w.id))).catch((error: unknown) => {
      logger.warn(`task quota usage not read (Redis cannot answer: ${errorMessage(error)})`);
      return undefined;
    });
    return windows.map(({ window, endsAt }, i) => ({ window, used: counts ? counts[i] : null, resetsAt: endsAt }));
  }

  /** A workstream's quota as support reads it: the limit in force per window (support's, else the default) and its use. */
  async answer(workstreamId: string, limits: QuotaLimits, now = new Date()): Promise<TaskQuotaAnswer> {
    const answer = { workstream_id: workstreamId } as TaskQuotaAnswer;
    for (const { window, used, resetsAt } of await this.usage(workstreamId, now)) {
      const defaultLimit = this.defaultLimit(window);
      const custom = limits[window];
      answer[window] = {
        limit: custom ?? defaultLimit,
        default_limit: defaultLimit,
        custom: custom !== null,
        used,
        resets_at: resetsAt.toISOString(),
      };
    }
    return answer;
  }
}
