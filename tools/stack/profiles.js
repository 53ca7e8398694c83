'use strict';
/**
 * Where each mode runs. `start` is what `npm start` brings up; `test` is what `npm test` brings up,
 * on other ports and another database so both can run side by side.
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
    gatewayPort: Number(process.env.TEST_PORT ?? 29100),
    databaseUrl: process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/workline_test',
    redisUrl: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379/15',
    kafkaBrokers: process.env.TEST_KAFKA_BROKERS,
    kafkaPort: Number(process.env.TEST_KAFKA_PORT ?? 29092),
    kafkaControllerPort: Number(process.env.TEST_KAFKA_PORT ?? 29092) + 1,
    freshData: true,
  },
};

module.exports = { profiles };
