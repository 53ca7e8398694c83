import fs from 'node:fs';
import path from 'node:path';
import { fail, ok, step } from './log';
import { run } from './process';

/**
 * The repository root, found by walking up to tools/bootstrap.js: these files run from tools/stack (Jest) and
 * compiled, from .cache/tools-dist/tools/stack (npm scripts) or .cache/bench-dist/tools/stack (benchmarks).
 */
function findRoot(from: string): string {
  for (let dir = from; dir !== path.dirname(dir); dir = path.dirname(dir))
    if (fs.existsSync(path.join(dir, 'tools', 'bootstrap.js'))) return dir;
  throw new Error(`no repository root above ${from}`);
}

export const root = findRoot(__dirname);

/** What the stacks leave for others to find: npm start's lock and admin token, the test stacks' files (WORKLINE_STACK_FILE). */
export const runDir = path.join(root, '.cache', 'run');

/** The admin token npm start generates when ADMIN_TOKEN is not set, in its run directory (tools/demo.ts reads it). */
export const ADMIN_TOKEN_FILE_NAME = 'admin-token';
export const adminTokenFile = path.join(runDir, ADMIN_TOKEN_FILE_NAME);

interface Bootstrap {
  ensureDependencies(): void;
}

/**
 * Installs npm dependencies when node_modules is missing or older than the lock file (tools/bootstrap.js, which runs before any of this
 * compiles).
 */
export function ensureDependencies(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require(path.join(root, 'tools', 'bootstrap.js')) as Bootstrap).ensureDependencies();
}

/** Generates the Prisma client from prisma/schema (offline: Prisma 6 with the JS engine). */
export function generatePrismaClient(): void {
  step('generating the Prisma client');
  run(path.join(root, 'node_modules/.bin/prisma'), ['generate'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Compiles apps and libs into dist/ (tsc -b: nothing to compile when npm test's type check has just built them). */
export function build(): void {
  step('building apps and libraries (tsc)');
  run('npm', ['run', '--silent', 'build'], { cwd: root });
  ok('build complete');
}

/**
 * The browser tests drive Debian's Chromium (never a downloaded browser): installed with apt when missing
 * and we are root; otherwise we stop and say what to install.
 */
export const CHROMIUM = '/usr/bin/chromium';
export function ensureChromium(): void {
  if (fs.existsSync(CHROMIUM)) return ok(`browser found (${CHROMIUM})`);
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    fail(`${CHROMIUM} is missing: the browser tests need Debian's chromium package (sudo apt-get install -y chromium).`);
  }
  step('installing chromium for the browser tests (apt-get)');
  run('sh', ['-c', 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium'], { cwd: root });
  if (!fs.existsSync(CHROMIUM)) fail(`apt-get installed chromium but ${CHROMIUM} is still missing`);
  ok('chromium installed');
}
