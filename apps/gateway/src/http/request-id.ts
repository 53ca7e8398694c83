import { Logger } from '@nestjs/common';
import { REQUEST_ID_HTTP_HEADER, requestIdFrom, runWithRequestId } from '@workline/observability';
import type { NextFunction, Request, Response } from 'express';
import { UNROUTED } from './metrics';

type WithRequestId = Request & { requestId?: string };

const logger = new Logger('http');

/**
 * Gives every request its id (the caller's X-Request-Id when well formed, else a new UUID), echoes it in
 * the answer's X-Request-Id, runs the rest of the pipeline under it (so RPC calls carry it into Kafka) and
 * logs one line per request when the answer is sent. The line has the path without its query string:
 * presigned upload URLs carry their signature there.
 */
export function requestIds() {
  return (request: WithRequestId, response: Response, next: NextFunction) => {
    const requestId = requestIdFrom(request.header(REQUEST_ID_HTTP_HEADER));
    request.requestId = requestId;
    response.setHeader(REQUEST_ID_HTTP_HEADER, requestId);
    const started = process.hrtime.bigint();
    response.once('finish', () => {
      const route = (request.route as { path?: string } | undefined)?.path;
      const durationMs = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log({
        msg: `${request.method} ${request.baseUrl}${request.path} ${response.statusCode}`,
        request_id: requestId,
        method: request.method,
        path: `${request.baseUrl}${request.path}`,
        route: route ? `${request.baseUrl}${route}` : UNROUTED,
        status: response.statusCode,
        duration_ms: Math.round(durationMs * 10) / 10,
      });
    });
    runWithRequestId(requestId, next);
  };
}

/**
 * Enters the request's id again. Stream callbacks (the body parser's) run outside the context entered by
 * requestIds(), so this is installed after the body parser.
 */
export function requestIdContext() {
  return (request: WithRequestId, _response: Response, next: NextFunction) => runWithRequestId(request.requestId, next);
}
