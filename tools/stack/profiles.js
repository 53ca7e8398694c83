'use strict';
/**
 * Where each mode runs. `start` is what `npm start` brings up; `test` is what `npm test` brings up,
 * on other ports and another database so both can run side by side; `bench` is what the benchmarks bring up.
 */
/**
 * A stack on its own ports, database and Redis index, its data reset each run; `<PREFIX>_PORT`,
 * `_DATABASE_URL`, `_REDIS_URL`, `_KAFKA_BROKERS` and `_KAFKA_PORT` (controller: port + 1) override.
 */
function isolated(name, prefix, defaults) {
  const env = (key) => process.env[`${prefix}_${key}`];
  const kafkaPort = Number(env('KAFKA_PORT') ?? defaults.kafkaPort);
  return {
    name,
    gatewayPort: Number(env('PORT') ?? defaults.port),
    databaseUrl: env('DATABASE_URL') ?? `postgresql://postgres@127.0.0.1:5432/${defaults.database}`,
    redisUrl: env('REDIS_URL') ?? `redis://127.0.0.1:6379/${defaults.redisDb}`,
    kafkaBrokers: env('KAFKA_BROKERS'),
    kafkaPort,
    kafkaControllerPort: kafkaPort + 1,
    freshData: true,
  };
}

const path = require('node:path');

const profiles = {
  start: {
    name: 'start',
    gatewayPort: Number(process.env.PORT ?? 3000),
    databaseUrl: process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/workline',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379/0',
    kafkaBrokers: process.env.KAFKA_BROKERS,
    kafkaPort: 9092,
    kafkaControllerPort: 9093,
    freshData: false,
    // Where the embedded PostgreSQL keeps its cluster when it runs (tools/stack/postgres.js decides).
    embeddedPostgresDir: path.join(__dirname, '..', '..', '.cache', 'postgres', 'start'),
  },
  test: isolated('test', 'TEST', { port: 29100, database: 'workline_test', redisDb: 15, kafkaPort: 29092 }),
  // `npm run bench*`: a stack of its own, so a benchmark never disturbs the test stack.
  bench: isolated('bench', 'BENCH', { port: 29300, database: 'workline_bench', redisDb: 14, kafkaPort: 29392 }),
};

module.exports = { profiles };
