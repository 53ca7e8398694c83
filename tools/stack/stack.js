'use strict';
const path = require('node:path');
const { root, ensureDependencies, generatePrismaClient, build } = require('./deps');
const { ensurePostgres, migrate, embeddedPostgresMode } = require('./postgres');
const { ensureRedis } = require('./redis');
const { startLocalKafka } = require('./kafka');
const { startApps, stopApps } = require('./apps');
const { stopProcess } = require('./process');
const { ok, warn } = require('./log');

/**
 * Brings up everything a profile needs, in order: dependencies, PostgreSQL (migrated; embedded when the
 * profile allows it and none is installed), Redis, Kafka, the build, then the five apps. Returns the environment the apps got and a stop() that undoes it all.
 */
async function startStack(profile, { quietApps = false, extraEnv = {} } = {}) {
  const started = [];
  const stop = async () => {
    for (const undo of started.reverse()) await undo().catch((error) => warn(String(error)));
    started.length = 0;
  };
  try {
    ensureDependencies();
    generatePrismaClient();
    const postgres = await ensurePostgres(profile.databaseUrl, {
      fresh: profile.freshData,
      embedded: profile.embeddedPostgresDir ? embeddedPostgresMode() : 'never',
      embeddedDir: profile.embeddedPostgresDir,
    });
    started.push(postgres.stop);
    migrate(profile.databaseUrl);
    const redis = await ensureRedis(profile.redisUrl);
    if (redis) started.push(() => stopProcess(redis));
    let brokers = profile.kafkaBrokers;
    if (!brokers) {
      const kafka = await startLocalKafka({
        profile: profile.name,
        port: profile.kafkaPort,
        controllerPort: profile.kafkaControllerPort,
        fresh: profile.freshData,
      });
      started.push(kafka.stop);
      brokers = kafka.brokers.join(',');
    } else {
      ok(`using Kafka at ${brokers}`);
    }
    build();
    const gatewayUrl = `http://127.0.0.1:${profile.gatewayPort}`;
    const env = {
      ...process.env,
      NODE_ENV: process.env.NODE_ENV ?? (profile.name === 'test' ? 'test' : 'development'),
      PORT: String(profile.gatewayPort),
      DATABASE_URL: profile.databaseUrl,
      REDIS_URL: profile.redisUrl,
      KAFKA_BROKERS: brokers,
      BLOB_DIR: process.env.BLOB_DIR ?? path.join(root, '.cache', 'blobs', profile.name),
      ...extraEnv,
    };
    const apps = await startApps({ env, gatewayUrl, quiet: quietApps, logDir: path.join(root, '.cache', 'logs', profile.name) });
    started.push(() => stopApps(apps));
    return { env, gatewayUrl, apps, stop, embeddedPostgres: postgres.embedded };
  } catch (error) {
    await stop();
    throw error;
  }
}

module.exports = { startStack };
