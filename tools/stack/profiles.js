'use strict';
/**
 * Where each mode runs. `start` is what `npm start` brings up; `test` is what `npm test` brings up,
 * on other ports and another database so both can run side by side; `bench` is what the benchmarks bring up.
 */
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
  },
  test: {
    name: 'test',
    gatewayPort: Number(process.env.TEST_PORT ?? 39100),
    databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/workline_test',
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
    kafkaBrokers: process.env.TEST_KAFKA_BROKERS,
    kafkaPort: Number(process.env.TEST_KAFKA_PORT ?? 39092),
    kafkaControllerPort: Number(process.env.TEST_KAFKA_PORT ?? 39092) + 1,
    freshData: true,
  },
  // `npm run bench*`: a stack of its own (fresh data), so a benchmark never disturbs the test stack.
  bench: {
    name: 'bench',
    gatewayPort: Number(process.env.BENCH_PORT ?? 39300),
    databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/workline_bench',
    redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379/14',
    kafkaBrokers: process.env.BENCH_KAFKA_BROKERS,
    kafkaPort: Number(process.env.BENCH_KAFKA_PORT ?? 39392),
    kafkaControllerPort: Number(process.env.BENCH_KAFKA_PORT ?? 39392) + 1,
    freshData: true,
  },
};

module.exports = { profiles };
