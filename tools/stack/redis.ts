import type { ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import { fail, ok, step } from './log';
import { commandExists, spawnPrefixed, waitFor } from './process';

/** Whether the Redis server at `url` answers PING. */
export async function ping(url: string, connectTimeout = 1500): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout, maxRetriesPerRequest: 0, retryStrategy: () => null });
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

/** Starts a redis-server on 127.0.0.1:port that keeps nothing on disk. */
export const spawnRedis = (port: number, logFile?: string): ChildProcess =>
  spawnPrefixed('redis', 'redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    env: process.env,
    quiet: true,
    logFile,
  });

/**
 * Reuses the Redis server in `url`, or starts a private redis-server when it is local and absent.
 * Returns the child process it started, if any, so the caller can stop it.
 */
export async function ensureRedis(url: string): Promise<ChildProcess | undefined> {
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
  const child = spawnRedis(Number(u.port || 6379));
  await waitFor('redis-server to answer PING', () => ping(url), { timeoutMs: 15_000 });
  ok(`Redis started (${u.host})`);
  return child;
}
