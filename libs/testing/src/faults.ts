import Redis from 'ioredis';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Client } from 'pg';
import type { HttpResult } from './http';
import { stackFile, testStack } from './stack';

const ROOT = join(__dirname, '..', '..', '..');

/** The private ports the fault suite's global setup used (tools/stack/faults-infra.ts `faultPorts`). */
export interface FaultPorts {
  kafka: number;
  kafkaController: number;
  postgres: number;
  redis: number;
  gateways: number[];
  /** Per app, the broker listener advertised at the port of that app's TCP proxy (network faults). */
  kafkaPerApp: { app: string; listener: number; proxy: number }[];
}

/**
 * What a fault suite asks of tools/stack/faults-infra.ts, the code its global setup started the private stack
 * with. Declared here, not imported from tools (which depends on this library), and checked there
 * (its `faultsInfra`).
 */
export interface FaultsInfra {
  killKafka(ports: FaultPorts): Promise<void>;
  kafkaOutage(ports: FaultPorts, ms: number): Promise<void>;
  stopKafka(): Promise<void>;
  startPrivateKafka(ports: FaultPorts, fresh: boolean): Promise<unknown>;
  postgresOutage(port: number, ms: number): Promise<void>;
  killRedis(): Promise<void>;
  startPrivateRedis(port: number): Promise<void>;
}

// The same code the global setup used to start them, compiled as the global setup runs it (tools/bootstrap.js),
// in plain Node outside Jest's module registry.
const infra = (): FaultsInfra =>
  (createRequire(__filename)(join(ROOT, 'tools', 'bootstrap.js')) as { load(entry: string): { faultsInfra: FaultsInfra } }).load(
    'stack/faults-infra',
  ).faultsInfra;

export const faultPorts = (): FaultPorts => (JSON.parse(readFileSync(stackFile(), 'utf8')) as { ports: FaultPorts }).ports;

/** SIGKILLs the fault suite's Kafka broker (no flush, no controlled shutdown) and starts it again on the same data. */
export const killKafka = (): Promise<void> => infra().killKafka(faultPorts());

/** Stops the fault suite's Kafka broker, keeps it away for `ms`, starts it again on the same data. */
export const kafkaOutage = (ms: number): Promise<void> => infra().kafkaOutage(faultPorts(), ms);

/** Stops the fault suite's Kafka broker (a clean stop) until {@link startKafka}: for faults that overlap its absence. */
export const stopKafka = (): Promise<void> => infra().stopKafka();

/** Starts the fault suite's Kafka broker again on the same data, once it answers. */
export const startKafka = async (): Promise<void> => {
  await infra().startPrivateKafka(faultPorts(), false);
};

/** Stops the fault suite's PostgreSQL in immediate mode, keeps it away for `ms`, starts it again. */
export const postgresOutage = (ms: number): Promise<void> => infra().postgresOutage(faultPorts().postgres, ms);

/** SIGKILLs the fault suite's redis-server: connections are refused until {@link startRedis}. It keeps nothing on disk. */
export const killRedis = (): Promise<void> => infra().killRedis();

/** Starts the fault suite's redis-server again on its port (empty, as after a crash). */
export const startRedis = (): Promise<void> => infra().startPrivateRedis(faultPorts().redis);

/** FLUSHALL on the stack's Redis: every rate-limit window, quota counter and cached value is gone. */
export async function flushRedis(): Promise<void> {
  const redis = new Redis(testStack().redisUrl, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.flushall();
  } finally {
    redis.disconnect();
  }
}

/** One query on a connection of its own (the database may have been restarted since the last one). */
export async function dbQuery<T extends Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: testStack().databaseUrl, connectionTimeoutMillis: 5000 });
  // A connection cut by a PostgreSQL outage is also an 'error' event: the query rejects, the event must not crash the test.
  client.on('error', () => undefined);
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Runs `work` while PostgreSQL refuses the rows of `table` for which `refused` (an SQL condition on the row)
 * holds: a CHECK constraint added NOT VALID (rows already there are not checked), dropped afterwards. How a
 * test makes the database refuse one row of a batch: the gateway already refuses every value it knows
 * PostgreSQL cannot store (a NUL, an unpaired surrogate, an integer past int4).
 */
export async function whileDatabaseRefuses<T>(table: string, refused: string, work: () => Promise<T>): Promise<T> {
  const constraint = `test_refuses_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  await dbQuery(`alter table ${table} add constraint ${constraint} check (not (${refused})) not valid`);
  try {
    return await work();
  } finally {
    await dbQuery(`alter table ${table} drop constraint ${constraint}`);
  }
}

export interface RetryOutcome<T> {
  /** The last answer: 2xx, or a status a client does not retry (4xx); undefined when the client gave up. */
  result?: HttpResult<T>;
  /** How many attempts were made (1 when the first one was answered). */
  attempts: number;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An attempt of {@link withRetries} that failed: a 5xx, a connection error or no answer in time. */
export interface FailedAttempt {
  startedAt: number;
  endedAt: number;
  failure: string;
}

/** Every failed attempt of {@link withRetries} in this process, oldest first (a test checks a window of it). */
export const failedAttempts: FailedAttempt[] = [];

/** The failed attempts that overlapped [from, to] (epoch ms). */
export const failedAttemptsBetween = (from: number, to: number): FailedAttempt[] =>
  failedAttempts.filter((a) => a.endedAt >= from && a.startedAt <= to);

/**
 * What a real client does: send, and on a connection error, a timeout or a 5xx, wait (250 ms doubling to
 * 2 s) and send the same request again, until an answer that is not retryable or `deadline` (epoch ms).
 * `send` gets the attempt number, so a client may spread its attempts over several gateways.
 */
export async function withRetries<T>(send: (attempt: number) => Promise<HttpResult<T>>, deadline: number): Promise<RetryOutcome<T>> {
  let wait = 250;
  for (let attempt = 1; ; attempt++) {
    const startedAt = Date.now();
    try {
      const result = await send(attempt);
      if (result.status < 500) return { result, attempts: attempt };
      failedAttempts.push({ startedAt, endedAt: Date.now(), failure: `${result.status} ${result.text.slice(0, 160)}` });
    } catch (error) {
      /* connection refused or reset, or no answer in time: retried like a 5xx */
      failedAttempts.push({ startedAt, endedAt: Date.now(), failure: String((error as Error).cause ?? error).slice(0, 160) });
    }
    if (Date.now() + wait > deadline) return { attempts: attempt };
    await pause(wait);
    wait = Math.min(wait * 2, 2000);
  }
}
