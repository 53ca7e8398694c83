export * from './lines.service';
export * from './platform.settings';
export * from './run-request';
export * from './run-views';
export * from './runs.service';
export * from './time-format';
export * from './unit-work.service';
export * from './unit-lease.metrics';
