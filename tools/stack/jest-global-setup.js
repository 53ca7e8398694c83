'use strict';
/** Starts the test stack once for the integration run (real Kafka, PostgreSQL, Redis and the five apps). */
const fs = require('node:fs');
const path = require('node:path');
const { root } = require('./deps');
const { profiles } = require('./profiles');
const { startStack } = require('./stack');
const { opsPorts } = require('./apps');
const { testAppEnv } = require('./test-env');
const { startTestDns } = require('./test-dns');

const TEST_ADMIN_TOKEN = 'test-admin-token-0123456789abcdef';

module.exports = async function globalSetup() {
  const dns = await startTestDns();
  globalThis.__WORKLINE_TEST_DNS__ = dns;
  const stack = await startStack(profiles.test, {
    quietApps: !process.env.WORKLINE_TEST_VERBOSE,
    extraEnv: {
      ...testAppEnv,
      ADMIN_TOKEN: TEST_ADMIN_TOKEN,
      // One line per request, handled message and delivery attempt, in .cache/logs/test/<app>.log (the
      // observability tests read them); the console stays quiet unless WORKLINE_TEST_VERBOSE is set.
      LOG_LEVEL: 'log',
      // Retry waits of 300 ms, 600 ms, 1.2 s, 2.4 s instead of hours (docs/webhooks.md "Decisions").
      WEBHOOK_RETRY_BASE_MS: '300',
      // The SSRF guard on, as in production, with one exception: 127.0.0.1, where the tests' receivers
      // listen (every other loopback, private, link-local or metadata address is refused). Callback hosts
      // are resolved by the test DNS server, whose names say what they resolve to (tools/stack/test-dns.js).
      WEBHOOK_ALLOW_PRIVATE: '127.0.0.1',
      WEBHOOK_DNS_SERVERS: dns.server,
    },
  });
  globalThis.__WORKLINE_STACK__ = stack;
  const file = path.join(root, '.cache', 'run', 'test-stack.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    JSON.stringify({
      gatewayUrl: stack.gatewayUrl,
      adminToken: TEST_ADMIN_TOKEN,
      databaseUrl: stack.env.DATABASE_URL,
      redisUrl: stack.env.REDIS_URL,
      kafkaBrokers: stack.env.KAFKA_BROKERS.split(','),
      pids: Object.fromEntries([...stack.apps].map(([app, child]) => [app, child.pid])),
      // Where each service serves /metrics and /health (HTTP_PORT).
      opsUrls: Object.fromEntries(Object.entries(opsPorts(profiles.test.gatewayPort)).map(([app, port]) => [app, `http://127.0.0.1:${port}`])),
      // What the apps were started with, so a test can start more instances of an app.
      appEnv: Object.fromEntries(
        Object.entries(stack.env).filter(([name]) => /^(NODE_ENV|PORT|DATABASE_URL|REDIS_URL|KAFKA_BROKERS|BLOB_DIR|ADMIN_TOKEN|LOG_LEVEL|WEBHOOK_|KAFKAJS_|KAFKA_SESSION_TIMEOUT_MS|SECRETS_KEY|RPC_TIMEOUT_MS|BODY_LIMIT_BYTES|AUTH_|RATE_LIMIT_|LOG_FORMAT)/.test(name)),
      ),
    }),
  );
  process.env.DATABASE_URL = stack.env.DATABASE_URL;
  process.env.KAFKAJS_NO_PARTITIONER_WARNING = '1';
};
