import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadEnvOrExit } from '@workline/config';
import { Authenticator } from '@workline/identity';
import { RedisService } from '@workline/redis';
import { ensureTopics, installJsonLogger, kafkaSettingsFrom } from '@workline/kafka';
import { installGracefulShutdown } from '@workline/observability';
import type { Server } from 'node:http';
import { GatewayEnv } from './gateway.env';
import { GatewayModule } from './gateway.module';
import { GatewayLifecycle } from './health/lifecycle';
import { authentication } from './auth/authentication';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { jsonBody } from './http/json-body';
import { GatewayMetrics } from './http/metrics';
import { RateLimiter } from './http/rate-limit';
import { requestIdContext, requestIds } from './http/request-id';
import { v3Deprecation } from './http/v3-deprecation';
import { StrictValidationPipe } from './http/validation.pipe';

async function bootstrap(): Promise<void> {
  const env = loadEnvOrExit(GatewayEnv, 'gateway');
  const jsonLogger = installJsonLogger(env, 'gateway');
  const logger = new Logger('gateway');
  await ensureTopics(kafkaSettingsFrom(env, 'gateway'));
  const app = await NestFactory.create<NestExpressApplication>(GatewayModule.register(env), {
    bodyParser: false,
    logger: jsonLogger,
  });
  app.disable('x-powered-by');
  app.set('trust proxy', env.TRUST_PROXY);
  app.use(requestIds());
  app.use(app.get(GatewayMetrics).middleware());
  app.use(authentication(app.get(Authenticator), new RateLimiter(app.get(RedisService), env.rateLimits)));
  app.use(v3Deprecation(env.v3Enabled, env.publicUrl));
  app.use(jsonBody(env.BODY_LIMIT_BYTES));
  app.use(requestIdContext());
  app.useGlobalPipes(new StrictValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  await app.listen(env.PORT, '0.0.0.0');
  const server = app.getHttpServer() as Server;
  server.keepAliveTimeout = env.HTTP_KEEP_ALIVE_MS;
  // Node's rule: headersTimeout must exceed keepAliveTimeout, or a slow first request on a kept connection is cut.
  server.headersTimeout = env.HTTP_KEEP_ALIVE_MS + 1000;
  installGracefulShutdown('gateway', {
    drain: () => (app.get(GatewayLifecycle).draining = true),
    delayMs: env.SHUTDOWN_DELAY_MS,
    stop: async () => {
      await closeHttpServer(server);
      // Only now the modules: Kafka request-reply, Redis and the database close after the last answer.
      await app.close();
    },
  });
  logger.log(`gateway listening on ${env.publicUrl} (instance ${env.INSTANCE_ID})`);
}

/**
 * Stops accepting connections and waits for the requests under way to be answered. Idle keep-alive
 * connections are closed as they become idle (Node closes only those idle at the moment of close()).
 */
function closeHttpServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    const sweeper = setInterval(() => server.closeIdleConnections(), 100);
    server.close(() => {
      clearInterval(sweeper);
      resolve();
    });
  });
}

bootstrap().catch((error: unknown) => {
  new Logger('gateway').error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
