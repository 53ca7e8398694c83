'use strict';
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const { step, ok, fail, warn } = require('./log');
const { clusterRunning } = require('./pg-cluster');
const { waitFor, run } = require('./process');
const { root } = require('./deps');
const path = require('node:path');

async function canConnect(url) {
  const { Client } = require('pg');
  const client = new Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (error) {
    return error;
  } finally {
    await client.end().catch(() => undefined);
  }
}

function maintenanceUrl(url) {
  const u = new URL(url);
  u.pathname = '/postgres';
  return u.toString();
}

/** Debian's packaged PostgreSQL: clusters under /etc/postgresql that pg_ctlcluster starts. */
const localClusterInstalled = () => fs.existsSync('/etc/postgresql') && spawnSync('sh', ['-c', 'command -v pg_ctlcluster']).status === 0;

function tryStartLocalCluster() {
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
function embeddedPostgresMode(env = process.env) {
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
function postgresSource({ mode, answers, loopback, installed }) {
  if (mode === 'always') return 'embedded';
  if (answers) return 'server';
  if (!loopback) return 'missing';
  if (installed) return 'local-cluster';
  return mode === 'fallback' ? 'embedded' : 'missing';
}

async function createDatabase(url, { fresh }) {
  const database = new URL(url).pathname.replace(/^\//, '');
  const { Client } = require('pg');
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
  } finally {
    await client.end();
  }
}

/**
 * Makes sure the server in `url` answers and the database exists: reuses a server that answers, else starts
 * the installed local cluster, else (as `embedded` allows: 'never', 'fallback' or 'always') runs the embedded
 * PostgreSQL on the URL's port with its cluster in `embeddedDir`. `fresh` drops and recreates the database
 * (and the embedded cluster). Returns stop(), which stops what this started (the embedded server, if any).
 */
async function ensurePostgres(url, { fresh = false, embedded = 'never', embeddedDir } = {}) {
  const u = new URL(url);
  const admin = maintenanceUrl(url);
  const loopback = LOOPBACK.includes(u.hostname);
  // An embedded server left running by an npm start that was killed answers like any other: take it over.
  const leftover = embedded !== 'never' && embeddedDir && clusterRunning(embeddedDir);
  let reachable = leftover || embedded === 'always' ? false : await canConnect(admin);
  const source = postgresSource({ mode: leftover ? 'always' : embedded, answers: reachable === true, loopback, installed: loopback && localClusterInstalled() });
  let stop = async () => undefined;
  if (source === 'embedded') {
    if (!loopback) fail(`the embedded PostgreSQL listens on 127.0.0.1: DATABASE_URL must name 127.0.0.1 or localhost, not ${u.hostname}`);
    const { startEmbeddedPostgres } = require('./embedded-postgres');
    ({ stop } = await startEmbeddedPostgres({ port: Number(u.port || 5432), dir: embeddedDir, fresh }));
    reachable = await waitFor('the embedded PostgreSQL to accept connections', async () => (await canConnect(admin)) === true, { timeoutMs: 30_000 });
  } else if (source === 'local-cluster' && tryStartLocalCluster()) {
    reachable = await waitFor('PostgreSQL to accept connections', async () => (await canConnect(admin)) === true, {
      timeoutMs: 30_000,
    }).catch((e) => e);
  }
  if (reachable !== true) {
    fail(
      `PostgreSQL is not reachable at ${u.host} (${reachable.message ?? 'the local cluster did not start'}).\n` +
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

/** Applies committed migrations with `prisma migrate deploy`. */
function migrate(url) {
  step('applying database migrations');
  run(path.join(root, 'node_modules/.bin/prisma'), ['migrate', 'deploy'], {
    cwd: root,
    env: { ...process.env, DATABASE_URL: url },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  ok('database migrated');
}

module.exports = { ensurePostgres, migrate, embeddedPostgresMode, postgresSource, warn };
