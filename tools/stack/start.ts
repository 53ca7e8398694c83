/**
 * `npm start`: installs what is missing, starts or reuses PostgreSQL (or runs the embedded one when none is
 * installed), Redis and Kafka, migrates, builds, runs the five apps and prints the gateway URL. Ctrl-C stops
 * everything it started.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { ADMIN_TOKEN_FILE_NAME, root, runDir as defaultRunDir } from './deps';
import { fail, paint, reportAndExit, step } from './log';
import { isAlive, portOpen, readPid } from './process';
import { logDirOf, type Profile, profiles } from './profiles';
import { type Stack, startStack } from './stack';

export interface StartOptions {
  /** Where the lock (start.pid) and the generated admin token are kept: .cache/run. */
  runDir?: string;
  /** Where the apps' logs go: .cache/logs/start. */
  logDir?: string;
  /** The checkout is installed and built already: npm ci, prisma generate and the build are skipped (a test). */
  prepared?: boolean;
  /** Whether a local PostgreSQL is installed: the probe npm start makes (a test answers it). */
  postgresInstalled?: () => boolean;
}

/** A second `npm start` says so instead of failing on taken ports. */
async function takeLock(profile: Profile, runDir: string, lockFile: string): Promise<void> {
  fs.mkdirSync(runDir, { recursive: true });
  const other = readPid(lockFile);
  if (isAlive(other) && other !== process.pid) {
    fail(
      `Workline is already running (npm start, pid ${other}) on http://127.0.0.1:${profile.gatewayPort}.\n  Stop it ` +
        `with Ctrl-C in its terminal (or kill ${other}) before starting another.`,
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
function adminToken(runDir: string): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  const file = path.join(runDir, ADMIN_TOKEN_FILE_NAME);
  if (!fs.existsSync(file)) fs.writeFileSync(file, crypto.randomBytes(24).toString('base64url'), { mode: 0o600 });
  return fs.readFileSync(file, 'utf8').trim();
}

/**
 * What `npm start` does with `profile` (profiles.start): the stack, the banner, Ctrl-C (SIGINT or SIGTERM)
 * stopping everything it started. The options let a test run it on its own directories (tools' e2e test of the
 * embedded PostgreSQL).
 */
export async function start(
  profile: Profile = profiles.start,
  { runDir = defaultRunDir, logDir = logDirOf(profile), prepared, postgresInstalled }: StartOptions = {},
): Promise<void> {
  const lockFile = path.join(runDir, 'start.pid');
  const startedAt = Date.now();
  await takeLock(profile, runDir, lockFile);
  const token = adminToken(runDir);
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
      logDir,
      ...(prepared ? { prepared } : {}),
      ...(postgresInstalled ? { postgresInstalled } : {}),
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
  const embedded = stack.embeddedPostgres ? `   (embedded; data in ${path.relative(root, profile.embeddedPostgresDir ?? '')})` : '';
  console.log(
    [
      '',
      paint('green', `Workline is up in ${seconds}s.`),
      `  Gateway:      ${stack.gatewayUrl}   (health: ${stack.gatewayUrl}/health)`,
      `  Admin token:  ${process.env.ADMIN_TOKEN ? '(from ADMIN_TOKEN)' : `${token}   (generated; kept in .cache/run/admin-token)`}`,
      `  PostgreSQL:   ${stack.env.DATABASE_URL}${embedded}`,
      `  Kafka:        ${stack.env.KAFKA_BROKERS}`,
      `  Logs:         ${path.relative(root, logDir)}/`,
      '  Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
}

/** `node tools/bootstrap.js stack/start` (npm start). */
export const main = (): Promise<void> => start().catch(reportAndExit);
