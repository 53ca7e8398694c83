/**
 * In-memory stand-ins for the oversight repositories, for the services' unit tests (*.spec.ts): rows in maps,
 * so a test drives the domain rules with no database. The SQL itself is proven by the integration suites.
 */
export * from './oversight-options';
export * from './in-memory-configurations';
export * from './in-memory-buckets';
export * from './in-memory-media-grants';
export * from './task-rows';
export * from './in-memory-assignments';
export * from './in-memory-tasks';
export * from './domain-error.matchers';
