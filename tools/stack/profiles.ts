/**
 * Where each mode runs. `start` is what `npm start` brings up; `test` is what `npm test` brings up,
 * on other ports and another database so both can run side by side; `bench` is what the benchmarks bring up.
 */
import { DEFAULT_DATABASE_URL, DEFAULT_GATEWAY_PORT, DEFAULT_KAFKA_PORT, DEFAULT_REDIS_URL } from '@workline/config';
import path from 'node:path';
import { root } from './deps';

export interface Profile {
  name: 'start' | 'test' | 'bench';
  gatewayPort: number;
  databaseUrl: string;
  redisUrl: string;
  /** Kafka to use instead of starting a local broker. */
  kafkaBrokers: string | undefined;
  kafkaPort: number;
  kafkaControllerPort: number;
  /** Whether the database and the broker's data are reset on every start. */
  freshData: boolean;
  /** Where the embedded PostgreSQL keeps its cluster when it runs (tools/stack/postgres.ts decides); only `start` may run it. */
  embeddedPostgresDir?: string;
}

/**
 * A stack on its own ports, database and Redis index, its data reset each run; `<PREFIX>_PORT`,
 * `_DATABASE_URL`, `_REDIS_URL`, `_KAFKA_BROKERS` and `_KAFKA_PORT` (controller: port + 1) override.
 */
function isolated(
  name: Profile['name'],
  prefix: string,
  defaults: { port: number; database: string; redisDb: number; kafkaPort: number },
): Profile {
  const env = (key: string) => process.env[`${prefix}_${key}`];
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

/** Where a profile's apps (and the test suites' extra instances) write their logs, one file each. */
export const logDirOf = (profile: Profile): string => path.join(root, '.cache', 'logs', profile.name);

/** The test stack's ports, database and Redis index when no TEST_* variable says otherwise. */
export const TEST_DEFAULTS = { port: 29100, database: 'workline_test', redisDb: 15, kafkaPort: 29092 };

export const profiles: Record<Profile['name'], Profile> = {
  start: {
    name: 'start',
    gatewayPort: Number(process.env.PORT ?? DEFAULT_GATEWAY_PORT),
    databaseUrl: process.env.DATABASE_URL ?? DEFAULT_DATABASE_URL,
    redisUrl: process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
    kafkaBrokers: process.env.KAFKA_BROKERS,
    kafkaPort: DEFAULT_KAFKA_PORT,
    kafkaControllerPort: DEFAULT_KAFKA_PORT + 1,
    freshData: false,
    embeddedPostgresDir: path.join(root, '.cache', 'postgres', 'start'),
  },
  test: isolated('test', 'TEST', TEST_DEFAULTS),
  // `npm run bench*`: a stack of its own, so a benchmark never disturbs the test stack.
  bench: isolated('bench', 'BENCH', { port: 29300, database: 'workline_bench', redisDb: 14, kafkaPort: 29392 }),
};
