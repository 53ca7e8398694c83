/**
 * The private infrastructure of the fault suite (`npm run test:faults`): a PostgreSQL cluster of its own
 * (initdb/pg_ctl into .cache/faults/pg), a redis-server and a Kafka broker on private ports. The suite
 * restarts and flushes them on purpose, so they must not be the machine's shared servers nor the
 * integration suite's.
 *
 * Used by the Jest global setup/teardown (tools/stack/faults-global-*.ts) and, for the faults themselves
 * (outages and crashes of Kafka, PostgreSQL and Redis), by libs/testing/src/faults.ts inside the test process.
 */
import { ALL_SERVICES, GATEWAY_APP } from '@workline/contracts';
import type { FaultPorts, FaultsInfra } from '@workline/testing';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './deps';
import { brokerAnswers, type LocalKafka, startLocalKafka } from './kafka';
import { fail, ok, step } from './log';
import { type PgCluster, pgCluster, runsAsRoot } from './pg-cluster';
import { commandExists, isAlive, readPid, stopProcess, waitFor } from './process';
import { TEST_DEFAULTS } from './profiles';
import { ping, spawnRedis } from './redis';

export { brokerAnswers };

const baseDir = path.join(root, '.cache', 'faults');
// As root the cluster belongs to the postgres user, who may not reach into the checkout (a clone under a
// mode-700 directory such as mktemp's): its directory then lives in /tmp, one per checkout.
const pgDir = runsAsRoot()
  ? path.join('/tmp', `workline-faults-pg-${crypto.createHash('sha256').update(root).digest('hex').slice(0, 12)}`)
  : path.join(baseDir, 'pg');
const pgData = path.join(pgDir, 'data');
const redisPidFile = path.join(baseDir, 'redis.pid');
const KAFKA_PROFILE = 'faults';
const kafkaPidFile = path.join(root, '.cache', 'kafka', KAFKA_PROFILE, 'broker.pid');
const KAFKA_PROXIED_APPS = [GATEWAY_APP, ...ALL_SERVICES];

/**
 * Private ports: FAULTS_*_PORT, else offsets from TEST_PORT (29100 by default) that the integration
 * stack does not use (it takes TEST_PORT, TEST_PORT + 7 and TEST_KAFKA_PORT/+1); + 52 to + 61 are the
 * per-app broker listeners and the ports of their proxies.
 */
export function faultPorts(env: NodeJS.ProcessEnv = process.env): FaultPorts {
  const base = Number(env.TEST_PORT ?? TEST_DEFAULTS.port);
  const port = (name: string, offset: number) => Number(env[name] ?? base + offset);
  return {
    kafka: port('FAULTS_KAFKA_PORT', 41),
    kafkaController: port('FAULTS_KAFKA_CONTROLLER_PORT', 42),
    postgres: port('FAULTS_PG_PORT', 43),
    redis: port('FAULTS_REDIS_PORT', 44),
    gateways: [port('FAULTS_GATEWAY_PORT', 45), port('FAULTS_GATEWAY_PORT', 45) + 1],
    // One broker listener per app for the network faults (libs/testing/src/network.ts): advertised at the
    // port of that app's TCP proxy, so every broker connection of the app goes through it.
    kafkaPerApp: KAFKA_PROXIED_APPS.map((app, i) => ({ app, listener: base + 52 + i, proxy: base + 57 + i })),
  };
}

function pgBinDir(): string {
  const candidates = [
    process.env.PG_BIN_DIR,
    '/usr/lib/postgresql/15/bin',
    '/usr/lib/postgresql/16/bin',
    '/usr/lib/postgresql/17/bin',
    '/usr/lib/postgresql/14/bin',
  ];
  for (const dir of candidates) if (dir && fs.existsSync(path.join(dir, 'pg_ctl'))) return dir;
  if (commandExists('pg_ctl')) return path.dirname(execFileSync('sh', ['-c', 'command -v pg_ctl']).toString().trim());
  return fail('the fault suite needs PostgreSQL server binaries (initdb, pg_ctl): apt-get install postgresql, or set PG_BIN_DIR');
}

// Made on first use: the binaries are looked up only when the suite needs its cluster.
let cluster: PgCluster | undefined;
const privateCluster = (): PgCluster =>
  (cluster ??= pgCluster({ binDir: pgBinDir(), dir: pgDir, settings: { max_connections: 300, fsync: 'off', full_page_writes: 'off' } }));

/** A fresh cluster under .cache/faults/pg on `port` (trust authentication on 127.0.0.1, user postgres). */
export async function startPrivatePostgres(port: number): Promise<void> {
  step(`creating a private PostgreSQL cluster in ${path.relative(root, pgData)} (port ${port})`);
  privateCluster().initialise();
  privateCluster().start(port);
  ok(`private PostgreSQL ready (127.0.0.1:${port})`);
}

/** PostgreSQL gone for `ms` (stopped in immediate mode: every connection cut), then started again on `port`. */
export async function postgresOutage(port: number, ms: number): Promise<void> {
  privateCluster().stop('immediate');
  await new Promise((resolve) => setTimeout(resolve, ms));
  privateCluster().start(port);
}

export function stopPrivatePostgres(): void {
  if (!fs.existsSync(path.join(pgData, 'postmaster.pid'))) return;
  privateCluster().stop('fast');
}

export async function startPrivateRedis(port: number): Promise<void> {
  await stopProcess(readPid(redisPidFile) ?? 0, 5000).catch(() => undefined);
  fs.mkdirSync(baseDir, { recursive: true });
  step(`starting a private redis-server on port ${port}`);
  const child = spawnRedis(port, path.join(baseDir, 'redis.log'));
  fs.writeFileSync(redisPidFile, String(child.pid));
  await waitFor('the private redis-server to answer PING', () => ping(`redis://127.0.0.1:${port}`, 10_000), { timeoutMs: 15_000 });
  ok(`private Redis ready (127.0.0.1:${port})`);
}

export const startPrivateKafka = (ports: FaultPorts, fresh = false): Promise<LocalKafka> =>
  startLocalKafka({
    profile: KAFKA_PROFILE,
    port: ports.kafka,
    controllerPort: ports.kafkaController,
    fresh,
    extraListeners: ports.kafkaPerApp.map(({ listener, proxy }, i) => ({ name: `APP${i}`, port: listener, advertisedPort: proxy })),
  });

/** A clean stop of the broker (controlled shutdown), so that an outage is the time it is away, not its recovery. */
export const stopKafka = (): Promise<void> => stopProcess(readPid(kafkaPidFile) ?? 0, 60_000);

/** The broker gone for `ms` (a clean stop), then started again on the same data. */
export async function kafkaOutage(ports: FaultPorts, ms: number): Promise<void> {
  await stopKafka();
  await new Promise((resolve) => setTimeout(resolve, ms));
  await startPrivateKafka(ports, false);
}

/** SIGKILL the broker (a crash: no flush, no controlled shutdown), then start it again on the same data. */
export async function killKafka(ports: FaultPorts): Promise<void> {
  const pid = readPid(kafkaPidFile) ?? 0;
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await waitFor('the killed Kafka broker to exit', () => !isAlive(pid), { timeoutMs: 30_000 });
  await startPrivateKafka(ports, false);
}

/** SIGKILL the private redis-server: every connection is refused until startPrivateRedis runs again. */
export async function killRedis(): Promise<void> {
  const pid = readPid(redisPidFile) ?? 0;
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  await waitFor('the killed redis-server to exit', () => !isAlive(pid), { timeoutMs: 10_000 });
}

export async function stopAll(): Promise<void> {
  await stopProcess(readPid(kafkaPidFile) ?? 0, 20_000);
  fs.rmSync(kafkaPidFile, { force: true });
  await stopProcess(readPid(redisPidFile) ?? 0, 5000);
  fs.rmSync(redisPidFile, { force: true });
  stopPrivatePostgres();
}

/** What libs/testing's fault helpers load from this file (they cannot import it: tools depend on them). */
export const faultsInfra = {
  killKafka,
  kafkaOutage,
  stopKafka,
  startPrivateKafka,
  postgresOutage,
  killRedis,
  startPrivateRedis,
} satisfies FaultsInfra;
