import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from 'pg';
import { root } from './deps';
import { fail, ok, step, warn } from './log';
import { startEmbeddedPostgres } from './embedded-postgres';
import { clusterRunning } from './pg-cluster';
import { runCollecting, waitFor } from './process';

/** Whether the embedded PostgreSQL may run: never, only when no other can be had, or always. */
export type EmbeddedMode = 'never' | 'fallback' | 'always';
/** Where the stack's PostgreSQL comes from (postgresSource). */
export type PostgresSource = 'server' | 'local-cluster' | 'embedded' | 'missing';

/** true, or why not. */
async function canConnect(url: string): Promise<true | Error> {
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    return error as Error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function maintenanceUrl(url: string): string {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** Debian's packaged PostgreSQL: clusters under /etc/postgresql that pg_ctlcluster starts. */
export const localClusterInstalled = (): boolean =>
  fs.existsSync('/etc/postgresql') && spawnSync('sh', ['-c', 'command -v pg_ctlcluster']).status === 0;

function tryStartLocalCluster(): boolean {
  for (const version of fs.readdirSync('/etc/postgresql')) {
    step(`starting the local PostgreSQL ${version} cluster`);
    const result = spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
      stdio: 'inherit',
    });
    if (result.status === 0) return true;
  }
  return false;
}

const LOOPBACK = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/**
 * Whether the embedded PostgreSQL may run (docs/operations.md, "Embedded PostgreSQL"): WORKLINE_EMBEDDED_POSTGRES=1
 * 'always' (on the port of DATABASE_URL, default 5432), =0 'never'; unset: 'never' when DATABASE_URL is set,
 * else 'fallback' (only when nothing answers at the default address and no PostgreSQL is installed).
 */
export function embeddedPostgresMode(env: NodeJS.ProcessEnv = process.env): EmbeddedMode {
  const forced = env.WORKLINE_EMBEDDED_POSTGRES;
  if (forced === '1') return 'always';
  if (forced === '0') return 'never';
  if (forced) fail(`WORKLINE_EMBEDDED_POSTGRES must be 1 (always run the embedded PostgreSQL) or 0 (never), not "${forced}"`);
  return env.DATABASE_URL ? 'never' : 'fallback';
}

/**
 * Where the stack's PostgreSQL comes from: 'server' (one answers at the URL), 'local-cluster' (an installed
 * local cluster to start), 'embedded' (the npm package's binaries) or 'missing' (stop and say what to install).
 */
export function postgresSource({
  mode,
  answers,
  loopback,
  installed,
}: {
  mode: EmbeddedMode;
  answers: boolean;
  loopback: boolean;
  installed: boolean;
}): PostgresSource {
  if (mode === 'always') return 'embedded';
  if (answers) return 'server';
  if (!loopback) return 'missing';
  if (installed) return 'local-cluster';
  return mode === 'fallback' ? 'embedded' : 'missing';
}

/**
 * TOAST compresses values over 2 KB, the outbox's batch rows (a CSV import's QC events, about 1 MB each) above
 * all; lz4 does it in a sixth of pglz's CPU, at about the same size (docs/operations.md, "PostgreSQL's TOAST
 * compression"). A setting of the database, so every session of the apps takes it; left alone where the server
 * was built without lz4 (the embedded PostgreSQL) or the database is not ours to alter.
 */
async function preferLz4(client: Client, database: string): Promise<void> {
  const { rows } = await client.query<{ lz4: boolean }>(
    `select 'lz4' = any(enumvals) as lz4 from pg_settings where name = 'default_toast_compression'`,
  );
  if (!rows[0]?.lz4) return;
  try {
    await client.query(`alter database "${database}" set default_toast_compression = 'lz4'`);
  } catch (error) {
    warn(`could not set lz4 as ${database}'s TOAST compression (${(error as Error).message}); it keeps the server's default`);
  }
}

async function createDatabase(url: string, { fresh }: { fresh: boolean }): Promise<void> {
  const database = new URL(url).pathname.replace(/^\//, '');
  const client = new Client({ connectionString: maintenanceUrl(url) });
  await client.connect();
  try {
    if (fresh) {
      await client.query(`drop database if exists "${database}" with (force)`);
    }
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`create database "${database}"`);
    }
    await preferLz4(client, database);
  } finally {
    await client.end();
  }
}

/**
 * Makes sure the server in `url` answers and the database exists: reuses a server that answers, else starts
 * the installed local cluster, else (as `embedded` allows: 'never', 'fallback' or 'always') runs the embedded
 * PostgreSQL on the URL's port with its cluster in `embeddedDir`. `fresh` drops and recreates the database
 * (and the embedded cluster). `installed` is the probe for a local PostgreSQL. Returns stop(), which stops what
 * this started (the embedded server, if any).
 */
export async function ensurePostgres(
  url: string,
  {
    fresh = false,
    embedded = 'never',
    embeddedDir,
    installed = localClusterInstalled,
  }: {
    fresh?: boolean;
    embedded?: EmbeddedMode;
    embeddedDir?: string;
    /** Whether a local PostgreSQL is installed (the probe npm start makes; a test may answer it). */
    installed?: () => boolean;
  } = {},
): Promise<{ stop: () => Promise<void>; embedded: boolean }> {
  const u = new URL(url);
  const admin = maintenanceUrl(url);
  const loopback = LOOPBACK.includes(u.hostname);
  // An embedded server left running by an npm start that was killed answers like any other: take it over.
  const leftover = embedded !== 'never' && !!embeddedDir && clusterRunning(embeddedDir);
  let reachable: true | Error | false = leftover || embedded === 'always' ? false : await canConnect(admin);
  const source = postgresSource({
    mode: leftover ? 'always' : embedded,
    answers: reachable === true,
    loopback,
    installed: loopback && installed(),
  });
  let stop = async (): Promise<void> => undefined;
  if (source === 'embedded') {
    if (!loopback) fail(`the embedded PostgreSQL listens on 127.0.0.1: DATABASE_URL must name 127.0.0.1 or localhost, not ${u.hostname}`);
    if (!embeddedDir) fail('the embedded PostgreSQL needs a directory for its cluster');
    ({ stop } = await startEmbeddedPostgres({ port: Number(u.port || 5432), dir: embeddedDir, fresh }));
    reachable = await waitFor('the embedded PostgreSQL to accept connections', async () => (await canConnect(admin)) === true, {
      timeoutMs: 30_000,
    });
  } else if (source === 'local-cluster' && tryStartLocalCluster()) {
    reachable = await waitFor('PostgreSQL to accept connections', async () => (await canConnect(admin)) === true, {
      timeoutMs: 30_000,
    }).catch((e: Error) => e);
  }
  if (reachable !== true) {
    fail(
      `PostgreSQL is not reachable at ${u.host} (${reachable === false ? 'the local cluster did not start' : reachable.message}).\n` +
        `  Install and start PostgreSQL 14 or newer (Debian/Ubuntu: apt-get install postgresql),\n` +
        `  or set DATABASE_URL to a server you can reach.`,
    );
  }
  try {
    await createDatabase(url, { fresh });
  } catch (error) {
    await stop();
    throw error;
  }
  ok(`PostgreSQL ready (${u.host}${u.pathname}${source === 'embedded' ? ', embedded' : ''})`);
  return { stop, embedded: source === 'embedded' };
}

/**
 * Applies committed migrations with `prisma migrate deploy` while the caller goes on (Redis, Kafka and the
 * build do not need them; only the apps do): resolves once they are applied, rejects with Prisma's output.
 * Prisma's schema engine takes about 10 s for them, most of it waiting, so a stack starts that much sooner.
 */
export function startMigrations(url: string): Promise<void> {
  step('applying database migrations (beside the steps below)');
  const migrations = runCollecting(path.join(root, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
  }).then(({ code, output }) => {
    if (code !== 0) throw new Error(`\`prisma migrate deploy\` exited with status ${code}:\n${output}`);
    ok('database migrated');
  });
  // Awaited by the caller before the apps start; a failure meanwhile must not go unhandled.
  migrations.catch(() => undefined);
  return migrations;
}
