import { REQUEST_ID_HTTP_HEADER, requestIdFrom, runWithRequestId } from '@workline/observability';
import type { FastifyInstance } from 'fastify';
import type { IncomingMessage } from 'node:http';
import { UNROUTED } from './metrics';
import { ROUTE_OF_RAW } from './request-log';

const HEADER = REQUEST_ID_HTTP_HEADER.toLowerCase();

/** Fastify's `genReqId`: the caller's X-Request-Id when well formed, else a new UUID (`request.id`). */
export const requestIdOf = (raw: IncomingMessage): string => requestIdFrom(raw.headers[HEADER]);

/**
 * Echoes every request's id (`request.id`, see requestIdOf) in the answer's X-Request-Id, runs the rest of
 * the request under it (so RPC calls carry it into Kafka), and leaves the matched route pattern on the raw
 * request for its log line (requestLogModules, pino-http).
 */
export function installRequestIds(fastify: FastifyInstance): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    reply.header(REQUEST_ID_HTTP_HEADER, request.id);
    (request.raw as IncomingMessage & { [ROUTE_OF_RAW]?: string })[ROUTE_OF_RAW] = request.routeOptions.url ?? UNROUTED;
    runWithRequestId(request.id, done);
  });
}
