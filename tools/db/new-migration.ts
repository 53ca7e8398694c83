/**
 * `npm run db:migration -- <name>`: writes prisma/migrations/<timestamp>_<name>/migration.sql with the
 * SQL that takes the schema as of the last committed migration to the current prisma/schema.
 * It diffs two datamodels (no shadow database, which the offline JS engine cannot provide).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { root } from '../stack/deps';

const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();

/** `node tools/bootstrap.js db/new-migration <name>`. */
export function main([raw = '']: string[]): void {
  const name = raw.replace(/[^a-z0-9_]+/gi, '_').toLowerCase();
  if (!name) {
    console.error('usage: npm run db:migration -- <name>');
    process.exit(2);
  }
  // The schema as it was when the newest committed migration was written.
  const since = git('log', '-1', '--format=%H', '--', 'prisma/migrations');
  const previous = fs.mkdtempSync(path.join(os.tmpdir(), 'workline-schema-'));
  for (const file of git('ls-tree', '--name-only', `${since}:prisma/schema`).split('\n').filter(Boolean)) {
    fs.writeFileSync(path.join(previous, file), git('show', `${since}:prisma/schema/${file}`) + '\n');
  }
  const result = spawnSync(
    path.join(root, 'node_modules/.bin/prisma'),
    ['migrate', 'diff', '--from-schema-datamodel', previous, '--to-schema-datamodel', 'prisma/schema', '--script'],
    { cwd: root, encoding: 'utf8' },
  );
  fs.rmSync(previous, { recursive: true, force: true });
  if (result.status !== 0) {
    console.error(result.stderr || result.stdout);
    process.exit(1);
  }
  const sql = result.stdout.trim();
  if (!sql || /^-- This is an empty migration/.test(sql)) {
    console.log('The schema matches the last migration: nothing to write.');
    process.exit(0);
  }
  const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
  const dir = path.join(root, 'prisma', 'migrations', `${stamp}_${name}`);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'migration.sql'), `${sql}\n`);
  console.log(`wrote ${path.relative(root, dir)}/migration.sql`);
}
