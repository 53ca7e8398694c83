'use strict';
const { compiled } = require('./tools/bootstrap');

/**
 * Fault-injection tests: *.faults-spec.ts. They kill and restart the apps, Kafka and PostgreSQL and flush
 * Redis, so they get infrastructure of their own (tools/stack/faults-infra.ts), started by the global setup
 * on private ports, never the integration suite's or the machine's shared servers.
 */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'faults',
  testMatch: ['<rootDir>/{apps,libs,e2e}/**/*.faults-spec.ts'],
  // Compiled (when changed) into .cache/tools-dist by tools/bootstrap.js.
  globalSetup: compiled('stack/faults-global-setup'),
  globalTeardown: compiled('stack/faults-global-teardown'),
  testTimeout: 600_000,
  maxWorkers: 1,
};
