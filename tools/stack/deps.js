'use strict';
const fs = require('node:fs');
const path = require('node:path');
const { run } = require('./process');
const { step, ok, fail } = require('./log');

const root = path.resolve(__dirname, '../..');

/** Installs npm dependencies when node_modules is missing or older than the lock file. */
function ensureDependencies() {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 11)) {
    fail(`Node.js ${process.versions.node} is too old: Workline needs Node.js 20.11 or newer.`);
  }
  const lock = path.join(root, 'package-lock.json');
  const installedMarker = path.join(root, 'node_modules', '.package-lock.json');
  const stale =
    !fs.existsSync(installedMarker) || fs.statSync(installedMarker).mtimeMs < fs.statSync(lock).mtimeMs;
  if (stale) {
    step('installing npm dependencies (npm ci)');
    run('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root });
  }
  ok('dependencies installed');
}

/** Generates the Prisma client from prisma/schema (offline: Prisma 6 with the JS engine). */
function generatePrismaClient() {
  step('generating the Prisma client');
  run(path.join(root, 'node_modules/.bin/prisma'), ['generate'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Compiles apps and libs into dist/ (incremental). */
function build() {
  step('building apps and libraries (tsc)');
  run('npm', ['run', '--silent', 'build'], { cwd: root });
  ok('build complete');
}

/**
 * The browser tests drive Debian's Chromium (never a downloaded browser): installed with apt when missing
 * and we are root; otherwise we stop and say what to install.
 */
const CHROMIUM = '/usr/bin/chromium';
function ensureChromium() {
  if (fs.existsSync(CHROMIUM)) return ok(`browser found (${CHROMIUM})`);
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    fail(`${CHROMIUM} is missing: the browser tests need Debian's chromium package (sudo apt-get install -y chromium).`);
  }
  step('installing chromium for the browser tests (apt-get)');
  run('sh', ['-c', 'apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium'], { cwd: root });
  if (!fs.existsSync(CHROMIUM)) fail(`apt-get installed chromium but ${CHROMIUM} is still missing`);
  ok('chromium installed');
}

module.exports = { root, ensureDependencies, generatePrismaClient, build, ensureChromium, CHROMIUM };
