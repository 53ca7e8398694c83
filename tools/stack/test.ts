/**
 * `npm test`: lint (with Nx module boundaries), type check, unit tests, then integration and end-to-end
 * tests against real Kafka, PostgreSQL and Redis, which the Jest global setup starts on test ports, then
 * the fault-injection suite on a private stack of its own (jest.faults.config.js).
 * Extra arguments go to both Jest runs (e.g. `npm test -- admin`); a run with no matching file is skipped.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ensureChromium, ensureDependencies, generatePrismaClient, root } from './deps';
import { fail, ok, paint, reportAndExit, step } from './log';

const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const timings: [string, number][] = [];

/** What eslint reads (as npm run lint): the apps, the libraries, the e2e suites and these tools (tsconfig.json type-checks the same folders). */
export const LINTED = ['apps', 'libs', 'e2e', 'tools'];

function stage(name: string, command: string, args: string[], env: Record<string, string> = {}): void {
  step(name);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TZ: 'UTC', NX_DAEMON: 'false', ...env } });
  const seconds = (Date.now() - started) / 1000;
  timings.push([name, seconds]);
  if (result.status !== 0) fail(`${name} failed (exit ${result.status ?? result.signal})`);
  ok(`${name} passed in ${seconds.toFixed(1)}s`);
}

/** Whether a Jest config has test files matching the command-line patterns. */
function hasTests(config: string, patterns: string[]): boolean {
  const result = spawnSync(bin('jest'), ['-c', config, '--listTests', ...patterns], { cwd: root, encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim().length > 0;
}

function runTests(extra: string[]): void {
  const started = Date.now();
  ensureDependencies();
  generatePrismaClient();
  ensureChromium();
  // The boundary rule reads Nx's cached project graph and silently skips itself without one.
  stage('Nx project graph', bin('nx'), ['show', 'projects']);
  stage('lint (eslint + Nx module boundaries)', bin('eslint'), LINTED);
  stage('type check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
  stage('unit tests', bin('jest'), ['-c', 'jest.unit.config.js', '--ci']);
  // With a pattern, a suite none of whose files match it is skipped (its stack is not even started).
  const narrowed = extra.length ? ['--passWithNoTests', ...extra] : [];
  stage('integration and end-to-end tests', bin('jest'), ['-c', 'jest.integration.config.js', '--ci', '--runInBand', ...narrowed], {
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  });
  // Kills and restarts apps, Kafka and PostgreSQL on a private stack of its own (docs/operations.md).
  stage('fault-injection tests', bin('jest'), ['-c', 'jest.faults.config.js', '--ci', '--runInBand', ...narrowed], {
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    // When the integration run had tests, its global setup has just built dist/.
    ...(hasTests('jest.integration.config.js', extra) ? { WORKLINE_SKIP_BUILD: '1' } : {}),
  });
  console.log(paint('green', `\nAll tests passed in ${((Date.now() - started) / 1000).toFixed(0)}s`));
  for (const [name, seconds] of timings) console.log(`  ${name.padEnd(40)} ${seconds.toFixed(1)}s`);
}

/** `node tools/bootstrap.js stack/test [jest patterns...]` (npm test). */
export function main(args: string[]): void {
  try {
    runTests(args);
  } catch (error) {
    reportAndExit(error);
  }
}
