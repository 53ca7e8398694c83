import { Logger } from '@nestjs/common';
import { REQUEST_ID_HTTP_HEADER, requestIdFrom, runWithRequestId } from '@workline/observability';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { UNROUTED } from './metrics';
import { pathOf } from './problem';

const logger = new Logger('http');

const HEADER = REQUEST_ID_HTTP_HEADER.toLowerCase();

/** Fastify's `genReqId`: the caller's X-Request-Id when well formed, else a new UUID (`request.id`). */
export const requestIdOf = (raw: IncomingMessage): string => requestIdFrom(raw.headers[HEADER]);

/**
 * Echoes every request's id (`request.id`, see requestIdOf) in the answer's X-Request-Id, runs the rest of
 * the request under it (so RPC calls carry it into Kafka) and logs one line per request when the answer is
 * sent. The line has the path without its query string: presigned upload URLs carry their signature there.
 */
export function installRequestIds(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HTTP_HEADER, request.id);
    runWithRequestId(request.id, done);
  });
  fastify.addHook('onResponse', (request, reply, done) => {
    const path = pathOf(request);
    logger.log({
      msg: `${request.method} ${path} ${reply.statusCode}`,
      request_id: request.id,
      method: request.method,
      path,
      route: request.routeOptions.url ?? UNROUTED,
      status: reply.statusCode,
      duration_ms: Math.round(reply.elapsedTime * 10) / 10,
    });
    done();
  });
}
