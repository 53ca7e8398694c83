export * from './configurations.service';
export * from './media-grants.service';
export * from './buckets.service';
export * from './tasks.service';
export * from './assignments.service';
export * from './task-events';
export * from './oversight.options';
export * from './task-lease.metrics';
