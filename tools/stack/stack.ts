import path from 'node:path';
import { type Apps, startApps, stopApps } from './apps';
import { build, ensureDependencies, generatePrismaClient, root } from './deps';
import { startLocalKafka } from './kafka';
import { ok, warn } from './log';
import { embeddedPostgresMode, ensurePostgres, startMigrations } from './postgres';
import { stopProcess } from './process';
import { logDirOf, type Profile } from './profiles';
import { ensureRedis } from './redis';

export interface Stack {
  /** The environment the apps were started with. */
  env: NodeJS.ProcessEnv & { PORT: string; DATABASE_URL: string; REDIS_URL: string; KAFKA_BROKERS: string };
  gatewayUrl: string;
  apps: Apps;
  /** Stops everything this start started, in reverse order. */
  stop(): Promise<void>;
  /** Whether PostgreSQL is the embedded one this start runs. */
  embeddedPostgres: boolean;
}

/**
 * Brings up everything a profile needs, in order: dependencies, PostgreSQL (migrated; embedded when the
 * profile allows it and none is installed), Redis, Kafka, the build, then the five apps. Returns the environment the apps got and a stop()
 * that undoes it all.
 */
export async function startStack(
  profile: Profile,
  {
    quietApps = false,
    extraEnv = {},
    signal,
    prepared = false,
    postgresInstalled,
    logDir = logDirOf(profile),
  }: {
    quietApps?: boolean;
    extraEnv?: Record<string, string>;
    /** The checkout is installed, its Prisma client generated and built already (a test stack did it): those steps are skipped. */
    prepared?: boolean;
    /** Whether a local PostgreSQL is installed (default: ensurePostgres's probe). */
    postgresInstalled?: () => boolean;
    /** Where the apps' logs go. */
    logDir?: string;
    /**
     * Aborted while starting: what has started is stopped and the promise rejects (npm start's Ctrl-C or a
     * SIGTERM during start-up; otherwise the apps outlived it and held their ports).
     */
    signal?: AbortSignal;
  } = {},
): Promise<Stack> {
  const started: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const undo of started.reverse()) await undo().catch((error) => warn(String(error)));
    started.length = 0;
  };
  try {
    if (!prepared) {
      ensureDependencies();
      generatePrismaClient();
    }
    const postgres = await ensurePostgres(profile.databaseUrl, {
      fresh: profile.freshData,
      embedded: profile.embeddedPostgresDir ? embeddedPostgresMode() : 'never',
      embeddedDir: profile.embeddedPostgresDir,
      ...(postgresInstalled ? { installed: postgresInstalled } : {}),
    });
    started.push(postgres.stop);
    signal?.throwIfAborted();
    const migrations = startMigrations(profile.databaseUrl);
    // Awaited below; an interrupted start gives up before that, and its failure then must not go unhandled.
    migrations.catch(() => undefined);
    const redis = await ensureRedis(profile.redisUrl);
    if (redis) started.push(() => stopProcess(redis));
    let brokers = profile.kafkaBrokers;
    if (!brokers) {
      const kafka = await startLocalKafka({
        profile: profile.name,
        port: profile.kafkaPort,
        controllerPort: profile.kafkaControllerPort,
        fresh: profile.freshData,
        signal,
      });
      started.push(kafka.stop);
      brokers = kafka.brokers.join(',');
    } else {
      ok(`using Kafka at ${brokers}`);
    }
    signal?.throwIfAborted();
    if (!prepared) build();
    await migrations;
    signal?.throwIfAborted();
    const gatewayUrl = `http://127.0.0.1:${profile.gatewayPort}`;
    const env: Stack['env'] = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? (profile.name === 'test' ? 'test' : 'development'),
      PORT: String(profile.gatewayPort),
      DATABASE_URL: profile.databaseUrl,
      REDIS_URL: profile.redisUrl,
      KAFKA_BROKERS: brokers,
      BLOB_DIR: process.env.BLOB_DIR ?? path.join(root, '.cache', 'blobs', profile.name),
      ...extraEnv,
    };
    const apps = await startApps({ env, gatewayUrl, quiet: quietApps, logDir, signal });
    started.push(() => stopApps(apps));
    return { env, gatewayUrl, apps, stop, embeddedPostgres: postgres.embedded };
  } catch (error) {
    await stop();
    throw error;
  }
}
