/**
 * `npm start`: installs what is missing, starts or reuses PostgreSQL (or runs the embedded one when none is
 * installed), Redis and Kafka, migrates, builds, runs the five apps and prints the gateway URL. Ctrl-C stops
 * everything it started.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { adminTokenFile, root, runDir } from './deps';
import { fail, paint, reportAndExit, step } from './log';
import { isAlive, portOpen, readPid } from './process';
import { type Profile, profiles } from './profiles';
import { type Stack, startStack } from './stack';

const lockFile = path.join(runDir, 'start.pid');

/** A second `npm start` says so instead of failing on taken ports. */
async function takeLock(profile: Profile): Promise<void> {
  fs.mkdirSync(runDir, { recursive: true });
  const other = readPid(lockFile);
  if (isAlive(other) && other !== process.pid) {
    fail(
      `Workline is already running (npm start, pid ${other}) on http://127.0.0.1:${profile.gatewayPort}.\n  Stop it with Ctrl-C in its terminal (or kill ${other}) before starting another.`,
    );
  }
  if (await portOpen('127.0.0.1', profile.gatewayPort)) {
    fail(
      `port ${profile.gatewayPort} is already in use by another program.\n  Free it, or choose another gateway port: PORT=3001 npm start`,
    );
  }
  fs.writeFileSync(lockFile, String(process.pid));
}

/** ADMIN_TOKEN: the environment's, else one generated once and kept in .cache/run/admin-token. */
function adminToken(): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  if (!fs.existsSync(adminTokenFile)) fs.writeFileSync(adminTokenFile, crypto.randomBytes(24).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(adminTokenFile, 'utf8').trim();
}

async function start(): Promise<void> {
  const profile = profiles.start;
  const startedAt = Date.now();
  await takeLock(profile);
  const token = adminToken();
  let stack: Stack;
  let starting: Promise<Stack> | undefined;
  const interrupt = new AbortController();
  let stopping = false;
  const shutdown = async (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    step(`${signal}: stopping everything npm start started`);
    // Still starting, startStack stops what it has started so far and rejects; started, it answers the stack.
    interrupt.abort();
    await (await starting?.catch(() => undefined))?.stop();
    fs.rmSync(lockFile, { force: true });
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  try {
    // A local stack accepts loopback callback URLs (npm run demo's receiver); production leaves this off.
    starting = startStack(profile, {
      extraEnv: { ADMIN_TOKEN: token, WEBHOOK_ALLOW_PRIVATE: process.env.WEBHOOK_ALLOW_PRIVATE ?? '1' },
      signal: interrupt.signal,
    });
    stack = await starting;
  } catch (error) {
    fs.rmSync(lockFile, { force: true });
    // Interrupted: shutdown() waits for the start to give up, then exits.
    if (stopping) return;
    throw error;
  }
  if (stopping) return;
  const seconds = ((Date.now() - startedAt) / 1000).toFixed(1);
  console.log(
    [
      '',
      paint('green', `Workline is up in ${seconds}s.`),
      `  Gateway:      ${stack.gatewayUrl}   (health: ${stack.gatewayUrl}/health)`,
      `  Admin token:  ${process.env.ADMIN_TOKEN ? '(from ADMIN_TOKEN)' : `${token}   (generated; kept in .cache/run/admin-token)`}`,
      `  PostgreSQL:   ${stack.env.DATABASE_URL}${stack.embeddedPostgres ? `   (embedded; data in ${path.relative(root, profile.embeddedPostgresDir ?? '')})` : ''}`,
      `  Kafka:        ${stack.env.KAFKA_BROKERS}`,
      `  Logs:         .cache/logs/start/`,
      '  Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

/** `node tools/bootstrap.js stack/start` (npm start). */
export const main = (): Promise<void> => start().catch(reportAndExit);
