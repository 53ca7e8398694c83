import path from 'node:path';
import { defineConfig } from 'prisma/config';
import { PrismaPg } from '@prisma/adapter-pg';
import { createRequire } from 'node:module';
import type { Pool, PoolClient, QueryResult } from 'pg';

// The adapter checks `instanceof pg.Pool` against the CommonJS build of pg; the config loader could
// otherwise hand us another build of pg, whose Pool fails that check and silently loses the shim below.
const pg = createRequire(path.resolve('package.json'))('pg') as typeof import('pg');

// The schema reads env("DATABASE_URL"); without a value the CLI falls back to downloading a native engine.
process.env.DATABASE_URL ??= 'postgresql://postgres@127.0.0.1:5432/workline';
const databaseUrl = process.env.DATABASE_URL;

/**
 * Works around prisma/orm issue 27403: through the pg adapter, migrate commands fail with
 * "Column type 'name' could not be deserialized". Result columns of type `name` (oid 19) are
 * reported as `text` (oid 25). Used only by the CLI (migrations), never by the apps.
 */
function withNameColumnsAsText(pool: Pool): Pool {
  const patch = (result: QueryResult) => {
    for (const field of result?.fields ?? []) if (field.dataTypeID === 19) field.dataTypeID = 25;
    return result;
  };
  const wrapQuery = <T extends { query: (...args: never[]) => unknown }>(target: T) => {
    const original = target.query.bind(target) as (...args: unknown[]) => unknown;
    (target as { query: unknown }).query = (...args: unknown[]) => {
      const out = original(...args);
      return out instanceof Promise ? out.then(patch) : out;
    };
  };
  wrapQuery(pool);
  pool.on('connect', (client: PoolClient) => wrapQuery(client));
  return pool;
}

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: path.join('prisma', 'schema'),
  migrations: { path: path.join('prisma', 'migrations') },
  adapter: async () => new PrismaPg(withNameColumnsAsText(new pg.Pool({ connectionString: databaseUrl }))),
});
