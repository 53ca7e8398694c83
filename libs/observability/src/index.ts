export * from './request-context';
export * from './logger';
export * from './metrics';
export * from './ops-server';
export * from './observability.module';
export * from './shutdown';
export * from './cached-check';
