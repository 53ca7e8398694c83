'use strict';
const { step, ok, fail } = require('./log');
const { commandExists, spawnPrefixed, waitFor } = require('./process');

async function ping(url) {
  const Redis = require('ioredis');
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1500, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/**
 * Reuses the Redis server in `url`, or starts a private redis-server when it is local and absent.
 * Returns the child process it started, if any, so the caller can stop it.
 */
async function ensureRedis(url) {
  if (await ping(url)) {
    ok(`Redis ready (${new URL(url).host})`);
    return undefined;
  }
  const u = new URL(url);
  if (!['127.0.0.1', 'localhost'].includes(u.hostname) || !commandExists('redis-server')) {
    fail(
      `Redis is not reachable at ${u.host}.\n` +
        `  Install Redis 6 or newer (Debian/Ubuntu: apt-get install redis-server), or set REDIS_URL to a server you can reach.`,
    );
  }
  step(`starting redis-server on port ${u.port || 6379}`);
  const child = spawnPrefixed(
    'redis',
    'redis-server',
    ['--port', String(u.port || 6379), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
    { env: process.env, quiet: true },
  );
  await waitFor('redis-server to answer PING', () => ping(url), { timeoutMs: 15_000 });
  ok(`Redis started (${u.host})`);
  return child;
}

module.exports = { ensureRedis };
