/** The quota's windows, in the order the reserve script checks them (and the limits hash names its fields). */
export const QUOTA_WINDOWS = ['day', 'week', 'month'] as const;
export type QuotaWindow = (typeof QUOTA_WINDOWS)[number];

const DAY_MS = 24 * 3600 * 1000;

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

/** Every window as it stands at `now`: its id and end. */
export const windowsAt = (now: Date) => QUOTA_WINDOWS.map((window) => ({ window, ...quotaWindow(window, now) }));

/** The Redis hash that holds a copy of the limits support set for a workstream (TaskQuotaLimits), read by the reserve script. */
export const quotaLimitsKey = (workstreamId: string) => `quota:tasks:limits:${workstreamId}`;

/** A window's count key: one per workstream and calendar window. */
export const quotaCounterKey = (workstreamId: string, windowId: string) => `quota:tasks:${workstreamId}:${windowId}`;
