import { TaskQuota } from './task-quota';
import { TaskQuotaCounters } from './task-quota-counters';
import { TaskQuotaLimits } from './task-quota-limits';
import { TaskQuotaLimitsRepository } from './task-quota-limits.repository';

/** The quota's providers, for the module that provides TASK_QUOTA_POLICY (the gateway's oversight API). */
export const TASK_QUOTA_PROVIDERS = [TaskQuotaCounters, TaskQuotaLimitsRepository, TaskQuota, TaskQuotaLimits];
