import { freePort, http, startGateway, testStack } from '@workline/testing';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..');

type StackPostgres = typeof import('../../tools/stack/postgres');

// What npm start runs (tools/stack/stack.ts), compiled as npm start runs it (tools/bootstrap.js), in plain Node outside Jest's module
// registry.
const stackPostgres = (): StackPostgres =>
  (createRequire(__filename)(join(ROOT, 'tools', 'bootstrap.js')) as { load(entry: string): StackPostgres }).load('stack/postgres');

/** Runs one statement on the database at `url` (the test's own marker table: no service's tables are read). */
async function onDatabase<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/**
 * npm start on a machine without PostgreSQL runs the embedded one (docs/operations.md, "Embedded PostgreSQL").
 * This machine has PostgreSQL, so the test forces it the way WORKLINE_EMBEDDED_POSTGRES=1 does, on a free port:
 * the same ensurePostgres and startMigrations that npm start calls, then a gateway whose database it is.
 */
describe('embedded PostgreSQL (npm start without PostgreSQL)', () => {
  it('starts on a free port, takes the migrations, serves an API round trip through a gateway, is taken over by the next start, then stops', async () => {
    const postgres = stackPostgres();
    expect(postgres.embeddedPostgresMode({ WORKLINE_EMBEDDED_POSTGRES: '1' })).toBe('always');
    const url = `postgresql://postgres@127.0.0.1:${await freePort()}/workline_embedded`;
    const embeddedDir = join(ROOT, '.cache', 'postgres', 'test-embedded');
    let server = await postgres.ensurePostgres(url, { embedded: 'always', embeddedDir, fresh: true });
    let gateway: Awaited<ReturnType<typeof startGateway>> | undefined;
    try {
      expect(server.embedded).toBe(true);
      await postgres.startMigrations(url);
      gateway = await startGateway({ DATABASE_URL: url });

      const created = await http<{ id: string; username: string; password: string }>('POST', `${gateway.url}/admin/v1/accounts`, {
        headers: { authorization: `Bearer ${testStack().adminToken}` },
        body: { name: 'Embedded Ltd' },
      });
      expect(created.status).toBe(201);
      const basic = `Basic ${Buffer.from(`${created.body.username}:${created.body.password}`).toString('base64')}`;
      const lines = await http('GET', `${gateway.url}/v4/lines`, { headers: { authorization: basic } });
      expect({ status: lines.status, body: lines.body }).toEqual({ status: 200, body: [] });
      // The account lives in the embedded database only: the test stack's gateway does not know it.
      expect((await http('GET', '/v4/lines', { headers: { authorization: basic } })).status).toBe(401);
      await onDatabase(url, 'create table embedded_takeover_marker (account_id text)');
      await onDatabase(url, 'insert into embedded_takeover_marker values ($1)', [created.body.id]);
      await gateway.stop();
      gateway = undefined;

      // An npm start that was killed leaves the server running: the next one (DATABASE_URL unset) takes it
      // over, with its data, rather than reusing it as a server it did not start and would never stop.
      server = await postgres.ensurePostgres(url, { embedded: 'fallback', embeddedDir });
      expect(server.embedded).toBe(true);
      expect(await onDatabase(url, 'select account_id from embedded_takeover_marker')).toEqual([{ account_id: created.body.id }]);
    } finally {
      await gateway?.stop();
      await server.stop();
    }
    await expect(onDatabase(url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
