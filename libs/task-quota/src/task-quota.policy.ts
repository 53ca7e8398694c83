import type { QuotaWindow } from './quota-windows';

/** What the quota takes from the gateway's settings (TASK_QUOTA_*, OversightApiEnv). */
export interface TaskQuotaPolicy {
  /** The limit of each window where support set none for a workstream. */
  defaultLimits: Record<QuotaWindow, number>;
  /** How often each gateway copies support's limits (PostgreSQL) to Redis again, after Redis lost them. */
  syncSeconds: number;
}

export const TASK_QUOTA_POLICY = Symbol('TaskQuotaPolicy');
