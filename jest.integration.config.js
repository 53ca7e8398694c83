'use strict';
/**
 * Integration and end-to-end tests: *.integration-spec.ts, against real Kafka, PostgreSQL and Redis
 * and the five apps, all started by the global setup on ports that do not collide with `npm start`.
 */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'integration',
  testMatch: ['<rootDir>/{apps,libs,e2e}/**/*.integration-spec.ts'],
  globalSetup: '<rootDir>/tools/stack/jest-global-setup.js',
  globalTeardown: '<rootDir>/tools/stack/jest-global-teardown.js',
  testTimeout: 120_000,
  maxWorkers: 1,
};
