'use strict';
/**
 * `npm run db:migration -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the
 * SQL that takes the committed migrations to the current prisma/schema. Prisma's diff replays the
 * migrations into a scratch database (the offline JS engine uses DATABASE_URL as its shadow database).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { Client } = require('pg');

const root = path.resolve(__dirname, '../..');
const name = (process.argv[2] ?? '').replace(/[^a-z0-9_]+/gi, '_').toLowerCase();
if (!name) {
  console.error('usage: npm run db:migration -- <name>');
  process.exit(2);
}
const base = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/workline');
const scratch = new URL(base);
scratch.pathname = '/workline_migration_scratch';
const admin = new URL(base);
admin.pathname = '/postgres';

async function main() {
  const client = new Client({ connectionString: admin.toString() });
  await client.connect();
  await client.query('drop database if exists workline_migration_scratch with (force)');
  await client.query('create database workline_migration_scratch');
  try {
    const result = spawnSync(
      path.join(root, 'node_modules/.bin/prisma'),
      ['migrate', 'diff', '--from-migrations', 'prisma/migrations', '--to-schema-datamodel', 'prisma/schema', '--script'],
      { cwd: root, env: { ...process.env, DATABASE_URL: scratch.toString() }, encoding: 'utf8' },
    );
    if (result.status !== 0) throw new Error(result.stderr || result.stdout);
    const sql = result.stdout.trim();
    if (!sql || /^-- This is an empty migration/.test(sql)) {
      console.log('The schema matches the migrations: nothing to write.');
      return;
    }
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = path.join(root, 'prisma', 'migrations', `${stamp}_${name}`);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'migration.sql'), `${sql}\n`);
    console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
  } finally {
    await client.query('drop database if exists workline_migration_scratch with (force)');
    await client.end();
  }
}

main().catch((error) => {
  console.error(error.message ?? error);
  process.exit(1);
});
