'use strict';
/**
 * Fault-injection tests: *.faults-spec.ts. They kill and restart the apps, Kafka and PostgreSQL and flush
 * Redis, so they get infrastructure of their own (tools/stack/faults-infra.js), started by the global setup
 * on private ports, never the integration suite's or the machine's shared servers.
 */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'faults',
  testMatch: ['<rootDir>/{apps,libs,e2e}/**/*.faults-spec.ts'],
  globalSetup: '<rootDir>/tools/stack/faults-global-setup.js',
  globalTeardown: '<rootDir>/tools/stack/faults-global-teardown.js',
  testTimeout: 600_000,
  maxWorkers: 1,
};
