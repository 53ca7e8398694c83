export * from './request-context';
export * from './logger';
export * from './metrics';
export * from './observability.module';
export * from './cached-check';
