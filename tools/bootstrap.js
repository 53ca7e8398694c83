'use strict';
/**
 * The one plain-JavaScript file of tools/: `node tools/bootstrap.js <entry> [args...]` (what the package.json
 * scripts run) makes sure npm dependencies are installed (npm ci when node_modules is missing or older than the
 * lock file), compiles the TypeScript tools (tools/tsconfig.json, into .cache/tools-dist; skipped when no source
 * changed), then runs tools/<entry>.ts's exported main(args). It uses Node's built-ins only, because on a fresh
 * clone nothing else is installed yet when it starts (Node 20 cannot run TypeScript itself).
 *
 * Jest configs and tests load compiled tools through load() (the same compile-when-changed step).
 */
const { spawnSync } = require('node:child_process');
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const outDir = path.join(root, '.cache', 'tools-dist');
const stampFile = path.join(outDir, '.sources');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
// The same markers as tools/stack/log.ts, which cannot be loaded before the compile.
const useColour = process.stdout.isTTY && !process.env.NO_COLOR;
const say = (colour, mark, message) => console.log(`${useColour ? `\x1b[${colour}m${mark}\x1b[0m` : mark}${message}`);

function stop(message) {
  console.error(`${useColour ? '\x1b[31m✖ \x1b[0m' : '✖ '}${message}`);
  process.exit(1);
}

function run(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.error) stop(`\`${[command, ...args].join(' ')}\` could not run: ${result.error.message}`);
  if (result.status !== 0) stop(`\`${[command, ...args].join(' ')}\` exited with status ${result.status ?? result.signal}`);
}

/**
 * Installs npm dependencies when node_modules is missing or older than the lock file. `quiet`: no line when
 * nothing was to do (an entry's standard output may be its product, e.g. openapi/client-types).
 */
function ensureDependencies({ quiet = false } = {}) {
  const [major, minor] = process.versions.node.split('.').map(Number);
  if (major < 20 || (major === 20 && minor < 11)) {
    stop(`Node.js ${process.versions.node} is too old: Workline needs Node.js 20.11 or newer.`);
  }
  const lock = path.join(root, 'package-lock.json');
  const installedMarker = path.join(root, 'node_modules', '.package-lock.json');
  const stale = !fs.existsSync(installedMarker) || fs.statSync(installedMarker).mtimeMs < fs.statSync(lock).mtimeMs;
  if (stale) {
    say(36, '▸ ', 'installing npm dependencies (npm ci)');
    run('npm', ['ci', '--no-audit', '--no-fund']);
  }
  if (!quiet || stale) say(32, '✔ ', 'dependencies installed');
}

/**
 * Every file the tools' compile may read (the tools, the libraries they import, the compiler settings), by size
 * and time. Generated code is left out: `prisma generate` rewrites the database client on every start, and the
 * tools import neither it nor the typed client's generated types.
 */
function sourcesFingerprint() {
  const hash = createHash('sha256');
  const visit = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      const file = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'generated') visit(file);
      } else if (entry.name.endsWith('.ts')) {
        const { size, mtimeMs } = fs.statSync(file);
        hash.update(`${path.relative(root, file)} ${size} ${mtimeMs}\n`);
      }
    }
  };
  visit(path.join(root, 'tools'));
  visit(path.join(root, 'libs'));
  for (const file of ['tsconfig.base.json', 'tools/tsconfig.json', 'package-lock.json'])
    hash.update(`${file} ${fs.statSync(path.join(root, file)).mtimeMs}\n`);
  return hash.digest('hex');
}

/** Compiles tools/ into .cache/tools-dist (tsc, then tsc-alias for the @workline/* imports) unless nothing changed. */
function compileTools() {
  const fingerprint = sourcesFingerprint();
  if (fs.existsSync(stampFile) && fs.readFileSync(stampFile, 'utf8') === fingerprint) return;
  fs.rmSync(stampFile, { force: true });
  // On standard error: standard output may be the entry's product.
  console.error(`${useColour ? '\x1b[36m▸ \x1b[0m' : '▸ '}compiling the tools (tools/tsconfig.json into .cache/tools-dist)`);
  run(bin('tsc'), ['-p', 'tools/tsconfig.json']);
  run(bin('tsc-alias'), ['-p', 'tools/tsconfig.json']);
  fs.writeFileSync(stampFile, fingerprint);
}

/** The compiled module of tools/<entry>.ts (e.g. 'stack/faults-infra'), compiled first when its sources changed. */
function load(entry) {
  compileTools();
  return require(path.join(outDir, 'tools', `${entry}.js`));
}

/** The compiled file of tools/<entry>.ts, for a Jest globalSetup. */
function compiled(entry) {
  compileTools();
  return path.join(outDir, 'tools', `${entry}.js`);
}

module.exports = { ensureDependencies, compileTools, load, compiled, root };

if (require.main === module) {
  const [entry, ...args] = process.argv.slice(2);
  if (!entry) stop('usage: node tools/bootstrap.js <entry under tools/, e.g. stack/start> [args...]');
  ensureDependencies({ quiet: true });
  const { main } = load(entry);
  if (typeof main !== 'function') stop(`tools/${entry}.ts exports no main()`);
  Promise.resolve()
    .then(() => main(args))
    .catch((error) => {
      console.error(error);
      process.exit(1);
    });
}
