/**
 * `npm test`: lint (with Nx module boundaries), type check, unit tests, then integration and end-to-end
 * tests against real Kafka, PostgreSQL and Redis, which the Jest global setup starts on test ports, then
 * the fault-injection suite on a private stack of its own (jest.faults.config.js).
 * Extra arguments go to both Jest runs (e.g. `npm test -- admin`); a run with no matching file is skipped.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ensureChromium, ensureDependencies, generatePrismaClient, root } from './deps';
import { failureDigest } from './jest-digest';
import { fail, ok, paint, reportAndExit, step } from './log';
import { CODE_FOLDERS, lineLengthCheck } from './long-lines';
import { runCollecting } from './process';

const bin = (name: string) => path.join(root, 'node_modules', '.bin', name);
const timings: [string, number][] = [];

function stage(name: string, command: string, args: string[], env: Record<string, string> = {}, onFailure?: () => void): void {
  step(name);
  const started = Date.now();
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, TZ: 'UTC', NX_DAEMON: 'false', ...env } });
  const seconds = (Date.now() - started) / 1000;
  timings.push([name, seconds]);
  if (result.status !== 0) {
    onFailure?.();
    fail(`${name} failed (exit ${result.status ?? result.signal})`);
  }
  ok(`${name} passed in ${seconds.toFixed(1)}s`);
}

/** Where each Jest stage writes its `--json` result (.cache/test-results/<config>.json). */
const resultsDir = path.join(root, '.cache', 'test-results');

/** A Jest stage whose failures are summed up again after its output (see jest-digest.ts). */
function jestStage(name: string, config: string, args: string[], env: Record<string, string> = {}): void {
  mkdirSync(resultsDir, { recursive: true });
  const resultFile = path.join(resultsDir, `${path.basename(config, '.js')}.json`);
  rmSync(resultFile, { force: true });
  stage(name, bin('jest'), ['-c', config, '--ci', '--json', '--outputFile', resultFile, ...args], env, () => {
    const digest = failureDigest(resultFile, root);
    if (digest.length) console.error(`\n${paint('red', `${name}: what failed`)}\n${digest.join('\n')}\n`);
  });
}

/** A check run as a command, or in this process when it is a quick one. */
type Check = { name: string } & ({ command: string; args: string[] } | { run: () => { code: number; output: string } });

/**
 * Independent checks at once (the type check and eslint each keep one core busy for a minute): each one's
 * output is held and printed whole when it ends, so two never interleave; any failure fails the stage.
 */
async function parallelStage(name: string, checks: Check[]): Promise<void> {
  step(name);
  const started = Date.now();
  const results = await Promise.all(
    checks.map(async (check) => {
      const began = Date.now();
      const { code, output } =
        'run' in check
          ? check.run()
          : await runCollecting(check.command, check.args, {
              cwd: root,
              env: { ...process.env, TZ: 'UTC', NX_DAEMON: 'false', FORCE_COLOR: '1' },
            });
      return { check, code, output, seconds: (Date.now() - began) / 1000 };
    }),
  );
  for (const { check, code, output, seconds } of results) {
    if (output.trim()) process.stdout.write(output.endsWith('\n') ? output : `${output}\n`);
    timings.push([check.name, seconds]);
    if (code === 0) ok(`${check.name} passed in ${seconds.toFixed(1)}s`);
  }
  const failed = results.filter((r) => r.code !== 0).map((r) => `${r.check.name} (exit ${r.code})`);
  if (failed.length) fail(`${name}: ${failed.join(', ')} failed`);
  ok(`${name} passed in ${((Date.now() - started) / 1000).toFixed(1)}s`);
}

/** Whether a Jest config has test files matching the command-line patterns. */
function hasTests(config: string, patterns: string[]): boolean {
  const result = spawnSync(bin('jest'), ['-c', config, '--listTests', ...patterns], { cwd: root, encoding: 'utf8' });
  return result.status === 0 && result.stdout.trim().length > 0;
}

async function runTests(extra: string[]): Promise<void> {
  const started = Date.now();
  ensureDependencies();
  generatePrismaClient();
  ensureChromium();
  // The boundary rule reads Nx's cached project graph and silently skips itself without one.
  stage('Nx project graph', bin('nx'), ['show', 'projects']);
  await parallelStage('static checks', [
    // The apps, the libraries, the e2e suites, these tools and the benchmarks (tsconfig.json type-checks all but the last).
    { name: 'lint (eslint + Nx module boundaries)', command: bin('eslint'), args: CODE_FOLDERS },
    // The type check is the build (dist/, incremental): the integration global setup's npm run build finds it up to date.
    { name: 'type check (and build)', command: bin('tsc'), args: ['-b', 'tsconfig.json'] },
    { name: 'format (prettier --check)', command: bin('prettier'), args: ['--check', '--log-level', 'warn', ...CODE_FOLDERS] },
    // eslint's max-len holds the code; this the JSON, HTML and CSS beside it (docs/decisions.md "Formatting and names").
    { name: 'line length (files eslint does not read)', run: lineLengthCheck },
  ]);
  jestStage('unit tests', 'jest.unit.config.js', []);
  // With a pattern, a suite none of whose files match it is skipped (its stack is not even started).
  const narrowed = extra.length ? ['--passWithNoTests', ...extra] : [];
  // Parallel workers on one stack, taking turns on it (docs/architecture.md, "Where tests live").
  jestStage('integration and end-to-end tests', 'jest.integration.config.js', narrowed, {
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
  });
  // Kills and restarts apps, Kafka and PostgreSQL on a private stack of its own (docs/operations.md).
  jestStage('fault-injection tests', 'jest.faults.config.js', ['--runInBand', ...narrowed], {
    KAFKAJS_NO_PARTITIONER_WARNING: '1',
    // When the integration run had tests, its global setup has just built dist/.
    ...(hasTests('jest.integration.config.js', extra) ? { WORKLINE_SKIP_BUILD: '1' } : {}),
  });
  console.log(paint('green', `\nAll tests passed in ${((Date.now() - started) / 1000).toFixed(0)}s`));
  for (const [name, seconds] of timings) console.log(`  ${name.padEnd(40)} ${seconds.toFixed(1)}s`);
}

/** `node tools/bootstrap.js stack/test [jest patterns...]` (npm test). */
export async function main(args: string[]): Promise<void> {
  try {
    await runTests(args);
  } catch (error) {
    reportAndExit(error);
  }
}
