import 'reflect-metadata';
import { Logger, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { BlobStoreEnv } from '@workline/blob-store';
import { loadEnvOrExit } from '@workline/config';
import { errorMessage, GATEWAY_APP } from '@workline/contracts';
import { Authenticator } from '@workline/identity';
import { RedisService } from '@workline/redis';
import { ensureTopics } from '@workline/messaging';
import { REQUEST_ID_HTTP_HEADER } from '@workline/observability';
import { installGracefulShutdown, installJsonLogger, kafkaSettingsFrom } from '@workline/service-runtime';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { GatewayEnv } from './gateway.env';
import { OversightApiEnv } from './oversight/oversight-api.env';
import { PerformanceApiEnv } from './performance/performance-api.env';
import { GatewayModule } from './gateway.module';
import { GatewayLifecycle } from './health/lifecycle';
import { installAuthentication } from './auth/authentication';
import { TaskQuotaRider } from './oversight/task-quota-rider';
import { HttpExceptionFilter } from './http/http-exception.filter';
import { installJsonBody } from './http/json-body';
import { GatewayMetrics } from './http/metrics';
import { writeProblem } from './http/problem';
import { RateLimiter } from './http/rate-limit';
import { installRequestIds, requestIdOf } from './http/request-id';
import { requestLogModules } from './http/request-log';
import { refuseNulInUrl } from './http/storable-input';
import { v3Deprecation } from './http/v3-deprecation';
import { openApiDocument } from './openapi/openapi';
import { ApiDescription } from './openapi/openapi.controller';
import { StrictValidationPipe } from './http/validation.pipe';

/** Node's own limit on a whole request, which Fastify would lift (0): a body trickling in forever is cut. */
const REQUEST_TIMEOUT_MS = 300_000;

function serverOptions(env: GatewayEnv): FastifyServerOptions {
  return {
    // Hops of proxies whose X-Forwarded-For is trusted for request.ip (0: the socket's address). A function,
    // not the number: Fastify 5.12 reads a number as "trust no hop" (its hop count cannot check the peer), and
    // the documented TRUST_PROXY is the hop count operators set behind their proxies (README).
    trustProxy: env.TRUST_PROXY > 0 ? (_address: string, hop: number) => hop < env.TRUST_PROXY : false,
    keepAliveTimeout: env.HTTP_KEEP_ALIVE_MS,
    requestTimeout: REQUEST_TIMEOUT_MS,
    genReqId: requestIdOf,
    // During a graceful stop, requests still arriving on kept-alive connections are served (and their
    // connections closed), not refused: the load balancer has already taken the gateway out of rotation.
    return503OnClosing: false,
    routerOptions: {
      ignoreTrailingSlash: true,
      // No limit of the router's own on an id in the path (unknown ids are 404s like any other):
      // the request line is bounded by Node's 16 KiB header limit anyway.
      maxParamLength: 16 * 1024,
    },
    // A path Fastify cannot decode (e.g. a bad %-escape in an id) is a 400 in the API group's error shape.
    frameworkErrors: (error, request, reply) => {
      reply.header(REQUEST_ID_HTTP_HEADER, request.id);
      writeProblem(request, reply, { status: error.statusCode ?? 400, message: error.message });
    },
  };
}

/** The gateway's modules plus its request log (pino-http through nestjs-pino), which needs the app's pino. */
@Module({})
class GatewayAppModule {}

async function bootstrap(): Promise<void> {
  const env = loadEnvOrExit(GatewayEnv, GATEWAY_APP);
  // The feature modules' settings too, before any connection: a bad one stops the gateway at once, naming it
  // (read again by the modules that use them).
  for (const settings of [PerformanceApiEnv, OversightApiEnv, BlobStoreEnv] as (new () => object)[]) loadEnvOrExit(settings, GATEWAY_APP);
  const jsonLogger = installJsonLogger(env, GATEWAY_APP);
  const logger = new Logger(GATEWAY_APP);
  await ensureTopics(kafkaSettingsFrom(env, GATEWAY_APP));
  const app = await NestFactory.create<NestFastifyApplication>(
    { module: GatewayAppModule, imports: [GatewayModule.register(env), ...requestLogModules(jsonLogger.pino)] },
    new FastifyAdapter(serverOptions(env)),
    { bodyParser: false, logger: jsonLogger },
  );
  // Built from the routes and their decorators once, before the first request (GET /docs/openapi.json).
  app.get(ApiDescription).openApi = openApiDocument(app);
  const fastify = app.getHttpAdapter().getInstance();
  // onRequest hooks run in this order, all before the body is read (installJsonBody's parsers).
  installRequestIds(fastify);
  refuseNulInUrl(fastify);
  app.get(GatewayMetrics).install(fastify);
  const taskQuota = app.get(TaskQuotaRider);
  taskQuota.install(fastify);
  // Before authentication: a 429 of /v3 is marked deprecated too, and a withdrawn v3 answers 410 to anyone.
  fastify.addHook('onRequest', v3Deprecation(env.v3Enabled, env.publicUrl));
  installAuthentication(fastify, app.get(Authenticator), new RateLimiter(app.get(RedisService), env.rateLimits), [taskQuota]);
  installJsonBody(fastify, env.BODY_LIMIT_BYTES);
  closeConnectionsWhileDraining(fastify, app.get(GatewayLifecycle));
  app.useGlobalPipes(new StrictValidationPipe());
  app.useGlobalFilters(new HttpExceptionFilter());
  await app.listen({ port: env.PORT, host: '0.0.0.0' });
  // Node's rule: headersTimeout must exceed keepAliveTimeout, or a slow first request on a kept connection is cut.
  fastify.server.headersTimeout = env.HTTP_KEEP_ALIVE_MS + 1000;
  installGracefulShutdown(GATEWAY_APP, {
    drain: () => (app.get(GatewayLifecycle).draining = true),
    delayMs: env.SHUTDOWN_DELAY_MS,
    stop: async () => {
      await closeHttpServer(fastify);
      // Only now the modules: Kafka request-reply, Redis and the database close after the last answer.
      await app.close();
    },
  });
  logger.log(`gateway listening on ${env.publicUrl} (instance ${env.INSTANCE_ID})`);
}

/**
 * While draining, every answer says `Connection: close`, so clients stop reusing their kept-alive connections
 * to this instance before it closes them: a request written on a connection the server closes at that very
 * moment fails with a reset, which a client counts as a connection error (the rolling restart test saw them).
 */
function closeConnectionsWhileDraining(fastify: FastifyInstance, lifecycle: GatewayLifecycle): void {
  // A callback hook, not an async one: it runs on every answer, and a flag check needs no promise.
  fastify.addHook('onSend', (_request, reply, payload, done) => {
    if (lifecycle.draining) void reply.header('connection', 'close');
    done(null, payload);
  });
}

/**
 * Stops accepting connections and waits for the requests under way to be answered. Idle keep-alive
 * connections are closed as they become idle (Node closes only those idle at the moment of close()).
 */
async function closeHttpServer(fastify: FastifyInstance): Promise<void> {
  const sweeper = setInterval(() => fastify.server.closeIdleConnections(), 100);
  try {
    await fastify.close();
  } finally {
    clearInterval(sweeper);
  }
}

bootstrap().catch((error: unknown) => {
  new Logger(GATEWAY_APP).error(`could not start: ${errorMessage(error)}`);
  process.exit(1);
});
