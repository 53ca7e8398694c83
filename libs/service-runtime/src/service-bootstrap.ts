import { type DynamicModule, type INestMicroservice, Logger, type LogLevel, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { BaseEnv, DEFAULT_GATEWAY_PORT, loadEnvOrExit } from '@workline/config';
import { errorMessage, SERVICE_RPC_TOPIC, type ServiceName, serviceOpsPort } from '@workline/contracts';
import { DbModule, type DbPoolOptions, PrismaService } from '@workline/db';
import { AppMetrics, JsonLogger, ObservabilityModule } from '@workline/observability';
import { writeFileSync } from 'node:fs';
import { DomainErrorRpcFilter, ensureTopics, KafkaModule, KafkaTransport, type KafkaSettings } from '@workline/messaging';
import { installGracefulShutdown } from './graceful-shutdown';
import { HealthRpcController } from './health.rpc-controller';
import { OpsServer } from './ops-server';

const LEVELS: LogLevel[] = ['error', 'warn', 'log', 'debug', 'verbose'];

export const logLevelsUpTo = (level: string): LogLevel[] => LEVELS.slice(0, LEVELS.indexOf(level as LogLevel) + 1);

export const kafkaSettingsFrom = (env: BaseEnv, app: string): KafkaSettings => ({
  brokers: env.kafkaBrokers,
  app,
  instanceId: env.INSTANCE_ID,
  sessionTimeoutMs: env.KAFKA_SESSION_TIMEOUT_MS,
});

/** Port of a service's operational endpoints when HTTP_PORT is not set: after the default gateway port (3001-3004). */
export const defaultHttpPort = (service: ServiceName): number => serviceOpsPort(service, DEFAULT_GATEWAY_PORT);

/** The app's JSON logger (pino), installed as Nest's logger so every `new Logger(...)` writes through it. */
export function installJsonLogger(env: BaseEnv, app: string): JsonLogger {
  const logger = new JsonLogger({ app, instance: env.INSTANCE_ID, level: env.LOG_LEVEL, format: env.LOG_FORMAT });
  Logger.overrideLogger(logger);
  return logger;
}

@Module({})
class ServiceRootModule {}

/**
 * Entry point of a Kafka-only service: validates the environment (BaseEnv, or the app's subclass of it),
 * ensures the topics exist, serves the service's RPC topic and its event handlers, serves /metrics and
 * /health/* on HTTP_PORT, and shuts down gracefully on SIGTERM/SIGINT (docs/operations.md).
 */
export function runService<E extends BaseEnv = BaseEnv>(
  service: ServiceName,
  moduleFor: (env: E, settings: KafkaSettings) => DynamicModule,
  envClass: new () => E = BaseEnv as new () => E,
  database: Pick<DbPoolOptions, 'sequentialScans'> = {},
): void {
  const env = loadEnvOrExit(envClass, service);
  const settings = kafkaSettingsFrom(env, service);
  const jsonLogger = installJsonLogger(env, service);
  const logger = new Logger(service);
  const metrics = new AppMetrics();
  const start = async (): Promise<INestMicroservice> => {
    await ensureTopics(settings);
    const transport = new KafkaTransport({ settings, rpcTopic: SERVICE_RPC_TOPIC[service], metrics });
    const app = await NestFactory.createMicroservice(
      // Every service answers the gateway's health probe over request-reply, and owns tables whose events
      // leave through its outbox: the database and the Kafka plumbing (producer, inbox, outbox relay) are
      // wired here once, global to the service's own module.
      {
        module: ServiceRootModule,
        controllers: [HealthRpcController],
        imports: [
          ObservabilityModule.forRoot(metrics),
          DbModule.forRoot(env.DATABASE_URL, env.DATABASE_POOL_SIZE, database),
          KafkaModule.forRoot({ settings, outbox: { retentionHours: env.OUTBOX_RETENTION_HOURS } }),
          moduleFor(env, settings),
        ],
      },
      { strategy: transport, logger: jsonLogger },
    );
    app.useGlobalFilters(new DomainErrorRpcFilter());
    const prisma = app.get(PrismaService, { strict: false });
    const ops = new OpsServer(metrics.registry, [
      { name: 'kafka', check: async () => transport.consumerProblem() },
      { name: 'database', check: () => prisma.probe() },
    ]);
    const port = await ops.listen(process.env.HTTP_PORT ? env.HTTP_PORT : defaultHttpPort(service));
    if (env.HTTP_PORT_FILE) writeFileSync(env.HTTP_PORT_FILE, String(port));
    installGracefulShutdown(service, {
      drain: () => (ops.draining = true),
      delayMs: env.SHUTDOWN_DELAY_MS,
      // The microservice closes the transport first (no more fetches; handlers under way finish; offsets
      // committed; replies and the producer flushed), then the modules: the dispatcher's attempts finish,
      // the outbox relays what is left, and last the producer and the database connections close.
      stop: async () => {
        await app.close();
        await ops.close();
      },
    });
    await app.listen();
    logger.log({
      msg: `listening on ${SERVICE_RPC_TOPIC[service]} (instance ${settings.instanceId}); /metrics and /health on port ${port}`,
      ops_port: port,
    });
    return app;
  };
  start().catch((error: unknown) => {
    logger.error(`could not start: ${errorMessage(error)}`);
    process.exit(1);
  });
}
