/** Starts the test stack once for the integration run (real Kafka, PostgreSQL, Redis and the five apps). */
import type { TestStack } from '@workline/testing';
import fs from 'node:fs';
import path from 'node:path';
import { opsPorts } from './apps';
import { runDir } from './deps';
import { logDirOf, profiles } from './profiles';
import { type Stack, startStack } from './stack';
import { startTestDns, type TestDns } from './test-dns';
import { testAppEnv } from './test-env';

const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';
/** The settings of the apps' environment that a test starting another instance of an app passes on (names or prefixes). */
const APP_ENV_KEYS = new RegExp(
  `^(${[
    ...['NODE_ENV', 'PORT', 'DATABASE_URL', 'REDIS_URL', 'KAFKA_BROKERS', 'BLOB_DIR', 'ADMIN_TOKEN', 'LOG_LEVEL', 'LOG_FORMAT'],
    ...['WEBHOOK_', 'KAFKAJS_', 'KAFKA_SESSION_TIMEOUT_MS', 'SECRETS_KEY', 'RPC_TIMEOUT_MS', 'BODY_LIMIT_BYTES', 'AUTH_', 'RATE_LIMIT_'],
  ].join('|')})`,
);

/** What the global setup hands its teardown (Jest runs both in the same process). */
export const started: { stack?: Stack; dns?: TestDns } = {};

export default async function globalSetup(): Promise<void> {
  const dns = await startTestDns();
  started.dns = dns;
  const stack = await startStack(profiles.test, {
    quietApps: !process.env.WORKLINE_TEST_VERBOSE,
    extraEnv: {
      ...testAppEnv,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      // One line per request, handled message and delivery attempt, in .cache/logs/test/<app>.log (logDir; the
      // observability tests read them); the console stays quiet unless WORKLINE_TEST_VERBOSE is set.
      LOG_LEVEL: 'log',
      // Retry waits of 300 ms, 600 ms, 1.2 s, 2.4 s instead of hours (docs/webhooks.md "Decisions").
      WEBHOOK_RETRY_BASE_MS: '300',
      // The SSRF guard on, as in production, with one exception: 127.0.0.1, where the tests' receivers
      // listen (every other loopback, private, link-local or metadata address is refused). Callback hosts
      // are resolved by the test DNS server, whose names say what they resolve to (tools/stack/test-dns.ts).
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
      WEBHOOK_DNS_SERVERS: dns.server,
    },
  });
  started.stack = stack;
  const file = path.join(runDir, 'test-stack.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const written: TestStack = {
    gatewayUrl: stack.gatewayUrl,
    adminToken: TEST_ADMIN_TOKEN,
    databaseUrl: stack.env.DATABASE_URL,
    redisUrl: stack.env.REDIS_URL,
    kafkaBrokers: stack.env.KAFKA_BROKERS.split(','),
    logDir: logDirOf(profiles.test),
    pids: Object.fromEntries([...stack.apps].map(([app, child]) => [app, child.pid ?? 0])),
    // Where each service serves /metrics and /health (HTTP_PORT).
    opsUrls: Object.fromEntries(
      Object.entries(opsPorts(profiles.test.gatewayPort)).map(([app, port]) => [app, `http://127.0.0.1:${port}`]),
    ),
    // What the apps were started with, so a test can start more instances of an app.
    appEnv: Object.fromEntries(
      Object.entries(stack.env).filter((entry): entry is [string, string] => entry[1] !== undefined && APP_ENV_KEYS.test(entry[0])),
    ),
  };
  fs.writeFileSync(file, JSON.stringify(written));
  // The Jest workers start after this, with this environment: @workline/testing's testStack() reads the file.
  process.env.WORKLINE_STACK_FILE = file;
  process.env.DATABASE_URL = stack.env.DATABASE_URL;
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
}
