export * from './quota-windows';
export * from './task-quota.policy';
export * from './task-quota';
export * from './task-quota-limits';
export * from './task-quota.providers';
