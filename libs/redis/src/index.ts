export * from './redis.module';
export * from './round-trip';
