'use strict';
const { compiled } = require('./tools/bootstrap');

/**
 * Integration and end-to-end tests: *.integration-spec.ts, against real Kafka, PostgreSQL and Redis
 * and the five apps, all started by the global setup on ports that do not collide with `npm start`.
 */
module.exports = {
  ...require('./jest.preset'),
  displayName: 'integration',
  testMatch: ['<rootDir>/{apps,libs,e2e}/**/*.integration-spec.ts'],
  // The TypeScript tools, compiled (when changed) into .cache/tools-dist by tools/bootstrap.js, as npm start runs them.
  globalSetup: compiled('stack/jest-global-setup'),
  globalTeardown: compiled('stack/jest-global-teardown'),
  testTimeout: 120_000,
  // Files run in parallel against the one stack, taking turns on it (libs/testing/src/stack-turns.ts): a file
  // that stops, kills or adds app instances runs alone, and the sequencer starts those first.
  setupFilesAfterEnv: ['<rootDir>/libs/testing/src/integration.setup.ts'],
  testSequencer: compiled('stack/integration-sequencer'),
  maxWorkers: Number(process.env.WORKLINE_TEST_WORKERS ?? 3),
};
