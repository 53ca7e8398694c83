/**
 * Global setup of the fault suite (jest.faults.config.js): a private PostgreSQL cluster, Redis and Kafka
 * (tools/stack/faults-infra.ts), migrated, and the build. The apps are started by the tests themselves
 * (libs/testing/src/fleet.ts), which kill and restart them. Writes .cache/run/faults-stack.json (the same
 * shape as test-stack.json) and points @workline/testing's testStack() at it (WORKLINE_STACK_FILE).
 */
import type { FaultPorts, TestStack } from '@workline/testing';
import fs from 'node:fs';
import path from 'node:path';
import { build, ensureDependencies, generatePrismaClient, root, runDir } from './deps';
import * as infra from './faults-infra';
import { ensurePostgres, startMigrations } from './postgres';
import { logDirOf, profiles } from './profiles';
import { testAppEnv } from './test-env';

/** The fault suite's stack file: the integration one's fields it has (no ops URLs: the tests start the apps), and its ports. */
export type FaultsStack = Omit<TestStack, 'opsUrls'> & { ports: FaultPorts };

const ADMIN_TOKEN = 'faults-admin-token-0123456789abcdef';

export default async function globalSetup(): Promise<void> {
  ensureDependencies();
  generatePrismaClient();
  const ports = infra.faultPorts();
  try {
    await infra.startPrivatePostgres(ports.postgres);
    const databaseUrl = `postgresql://postgres@127.0.0.1:${ports.postgres}/workline_faults`;
    await ensurePostgres(databaseUrl, { fresh: true });
    const migrations = startMigrations(databaseUrl);
    await infra.startPrivateRedis(ports.redis);
    const kafka = await infra.startPrivateKafka(ports, true);
    // `npm test` has just built dist/ for the integration run.
    if (!process.env.WORKLINE_SKIP_BUILD) build();
    await migrations;
    const appEnv = {
      NODE_ENV: 'test',
      DATABASE_URL: databaseUrl,
      REDIS_URL: `redis://127.0.0.1:${ports.redis}/0`,
      KAFKA_BROKERS: kafka.brokers.join(','),
      BLOB_DIR: path.join(root, '.cache', 'blobs', 'faults'),
      ...testAppEnv,
      ADMIN_TOKEN,
      // Retries every second or so rather than every hour: a webhook a fault made fail is retried within the test.
      WEBHOOK_RETRY_BASE_MS: '1000',
      // A lease whose answer a fault swallowed (the worker never learnt its assignment id) comes back
      // within seconds instead of 15 or 30 minutes: the work API's documented recovery, on a test clock.
      UNIT_LEASE_SECONDS: '15',
      TASK_LEASE_SECONDS: '15',
      // A crashed instance's partitions move to the others (or to its successor) after 10 s instead of 30 s.
      // Not 6 s (the broker's minimum): it saved ~4 s a crash, but an instance starved of CPU for 6 s on a loaded
      // machine is taken out of its group, and the rolling restart's zero-5xx check met an RPC timeout so.
      KAFKA_SESSION_TIMEOUT_MS: '10000',
    };
    const file = path.join(runDir, 'faults-stack.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const written: FaultsStack = {
      gatewayUrl: `http://127.0.0.1:${ports.gateways[0]}`,
      adminToken: ADMIN_TOKEN,
      databaseUrl,
      redisUrl: appEnv.REDIS_URL,
      kafkaBrokers: kafka.brokers,
      // The fleets' instances log beside the test stack's apps (.cache/logs/test/fleet-<app>-<n>.log).
      logDir: logDirOf(profiles.test),
      pids: {},
      appEnv,
      ports,
    };
    fs.writeFileSync(file, JSON.stringify(written));
    process.env.WORKLINE_STACK_FILE = file;
    process.env.DATABASE_URL = databaseUrl;
    process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
  } catch (error) {
    await infra.stopAll().catch(() => undefined);
    throw error;
  }
}
