import 'reflect-metadata';
import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { loadEnvOrExit } from '@workline/config';
import { RedisService } from '@workline/redis';
import { ensureTopics, kafkaSettingsFrom, logLevelsUpTo } from '@workline/kafka';
import { GatewayEnv } from './gateway.env';
import { GatewayModule } from './gateway.module';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { jsonBody } from './http/json-body';
import { GatewayMetrics } from './http/metrics';
import { RateLimiter } from './http/rate-limit';
import { v3Deprecation } from './http/v3-deprecation';
import { StrictValidationPipe } from './http/validation.pipe';

async function bootstrap(): Promise<void> {
  const env = loadEnvOrExit(GatewayEnv, 'gateway');
  const logger = new Logger('gateway');
  await ensureTopics(kafkaSettingsFrom(env, 'gateway'));
  const app = await NestFactory.create<NestExpressApplication>(GatewayModule.register(env), {
    bodyParser: false,
    logger: logLevelsUpTo(env.LOG_LEVEL),
  });
  app.disable('x-powered-by');
  app.set('trust proxy', env.TRUST_PROXY);
  app.use(app.get(GatewayMetrics).middleware());
  app.use(new RateLimiter(app.get(RedisService), env.rateLimits).middleware());
  app.use(v3Deprecation(env.v3Enabled, env.publicUrl));
  app.use(jsonBody(env.BODY_LIMIT_BYTES));
  app.useGlobalPipes(new StrictValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  app.enableShutdownHooks();
  await app.listen(env.PORT, '0.0.0.0');
  logger.log(`gateway listening on ${env.publicUrl} (instance ${env.INSTANCE_ID})`);
}

bootstrap().catch((error: unknown) => {
  new Logger('gateway').error(`could not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
