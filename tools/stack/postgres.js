'use strict';
const fs = require('node:fs');
const { spawnSync } = require('node:child_process');
const { step, ok, fail, warn } = require('./log');
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

function tryStartLocalCluster() {
  if (!fs.existsSync('/etc/postgresql') || spawnSync('sh', ['-c', 'command -v pg_ctlcluster']).status !== 0) {
    return false;
  }
  for (const version of fs.readdirSync('/etc/postgresql')) {
    step(`starting the local PostgreSQL ${version} cluster`);
    const result = spawnSync('pg_ctlcluster', ['--skip-systemctl-redirect', version, 'main', 'start'], {
      stdio: 'inherit',
    });
    if (result.status === 0) return true;
  }
  return false;
}

/**
 * Makes sure the server in `url` answers and the database exists.
 * `fresh` drops and recreates the database (used by the test profile).
 */
async function ensurePostgres(url, { fresh = false } = {}) {
  const u = new URL(url);
  const database = u.pathname.replace(/^\//, '');
  const admin = maintenanceUrl(url);
  let reachable = await canConnect(admin);
  if (reachable !== true && ['127.0.0.1', 'localhost', '::1'].includes(u.hostname) && tryStartLocalCluster()) {
    reachable = await waitFor('PostgreSQL to accept connections', async () => (await canConnect(admin)) === true, {
      timeoutMs: 30_000,
    }).catch((e) => e);
  }
  if (reachable !== true) {
    fail(
      `PostgreSQL is not reachable at ${u.host} (${reachable.message}).\n` +
        `  Install and start PostgreSQL 14 or newer (Debian/Ubuntu: apt-get install postgresql),\n` +
        `  or set DATABASE_URL to a server you can reach.`,
    );
  }
  const { Client } = require('pg');
  const client = new Client({ connectionString: admin });
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
  ok(`PostgreSQL ready (${u.host}/${database})`);
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

module.exports = { ensurePostgres, migrate, warn };
