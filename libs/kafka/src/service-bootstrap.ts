import { type DynamicModule, type INestMicroservice, Logger, type LogLevel } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BaseEnv, loadEnvOrExit } from '@workline/config';
import { SERVICE_RPC_TOPIC, type ServiceName } from '@workline/contracts';
import type { KafkaSettings } from './kafka.settings';
import { DomainErrorRpcFilter } from './rpc-error.filter';
import { ensureTopics } from './topics.admin';
import { KafkaTransport } from './transport';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

export const logLevelsUpTo = (level: string): LogLevel[] => LEVELS.slice(0, LEVELS.indexOf(level as LogLevel) + 1);

export const kafkaSettingsFrom = (env: BaseEnv, app: string): KafkaSettings => ({
  brokers: env.kafkaBrokers,
  app,
  instanceId: env.INSTANCE_ID,
  sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
});

/**
 * Entry point of a Kafka-only service: validates the environment (BaseEnv, or the app's subclass of it), ensures the topics exist, serves the
 * service's RPC topic and its event handlers, and shuts down cleanly on SIGTERM/SIGINT.
 */
export function runService<E extends BaseEnv = BaseEnv>(
  service: ServiceName,
  moduleFor: (env: E, settings: KafkaSettings) => DynamicModule,
  envClass: new () => E = BaseEnv as new () => E,
): void {
  const env = loadEnvOrExit(envClass, service);
  const settings = kafkaSettingsFrom(env, service);
  const logger = new Logger(service);
  const start = async (): Promise<INestMicroservice> => {
    await ensureTopics(settings);
    const app = await NestFactory.createMicroservice(moduleFor(env, settings), {
      strategy: new KafkaTransport({ settings, rpcTopic: SERVICE_RPC_TOPIC[service] }),
      logger: logLevelsUpTo(env.LOG_LEVEL),
    });
    app.useGlobalFilters(new DomainErrorRpcFilter());
    app.enableShutdownHooks();
    await app.listen();
    logger.log(`listening on ${SERVICE_RPC_TOPIC[service]} (instance ${settings.instanceId})`);
    return app;
  };
  start().catch((error: unknown) => {
    logger.error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
