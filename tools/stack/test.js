'use strict';
/**
 * `npm test`: lint (with Nx module boundaries), type check, unit tests, then integration and end-to-end
 * tests against real Kafka, PostgreSQL and Redis, which the Jest global setup starts on test ports.
 * Extra arguments go to the integration Jest run (e.g. `npm test -- admin`).
 */
const { spawnSync } = require('node:child_process');
const path = require('node:path');
const { root, ensureDependencies, generatePrismaClient, ensureChromium } = require('./deps');
const { step, ok, reportAndExit, fail, paint } = require('./log');

const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const timings = [];

function stage(name, command, args, env = {}) {
  step(name);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TZ: 'UTC', NX_DAEMON: 'false', ...env } });
  const seconds = (Date.now() - started) / 1000;
  timings.push([name, seconds]);
  if (result.status !== 0) fail(`${name} failed (exit ${result.status ?? result.signal})`);
  ok(`${name} passed in ${seconds.toFixed(1)}s`);
}

function main() {
  const started = Date.now();
  ensureDependencies();
  generatePrismaClient();
  ensureChromium();
  const extra = process.argv.slice(2);
  // The boundary rule reads Nx's cached project graph and silently skips itself without one.
  stage('Nx project graph', bin('nx'), ['show', 'projects']);
  stage('lint (eslint + Nx module boundaries)', bin('eslint'), ['apps', 'libs']);
  stage('type check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  stage('unit tests', bin('jest'), ['-c', 'jest.unit.config.js', '--ci']);
  stage('integration and end-to-end tests', bin('jest'), ['-c', 'jest.integration.config.js', '--ci', '--runInBand', ...extra], {
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  });
  console.log(paint('green', `\nAll tests passed in ${((Date.now() - started) / 1000).toFixed(0)}s`));
  for (const [name, seconds] of timings) console.log(`  ${name.padEnd(40)} ${seconds.toFixed(1)}s`);
}

try {
  main();
} catch (error) {
  reportAndExit(error);
}
