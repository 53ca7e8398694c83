import type { DynamicModule } from '@nestjs/common';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { LoggerModule } from 'nestjs-pino';
import type { Logger } from 'pino';
import { UNROUTED } from './metrics';

/** Where installRequestIds leaves the matched route pattern on the raw request, for the log line. */
export const ROUTE_OF_RAW = Symbol('route');

type RawRequest = IncomingMessage & { id?: unknown; [ROUTE_OF_RAW]?: string };

/** The path without its query string: presigned upload URLs carry their signature there. */
const pathOfUrl = (url: string | undefined): string => {
  const raw = url ?? '/';
  const query = raw.indexOf('?');
  return query < 0 ? raw : raw.slice(0, query);
};

const message = (req: IncomingMessage, res: ServerResponse): string => `${req.method} ${pathOfUrl(req.url)} ${res.statusCode}`;

/** The fields of the line: chosen ones only (never headers, bodies nor query strings). */
const fields = (req: RawRequest, res: ServerResponse, value: { duration_ms?: number }): Record<string, unknown> => ({
  context: 'http',
  request_id: req.id,
  method: req.method,
  path: pathOfUrl(req.url),
  route: req[ROUTE_OF_RAW] ?? UNROUTED,
  status: res.statusCode,
  duration_ms: value.duration_ms,
});

/**
 * One log line per HTTP request when its answer is sent (or its connection closes), written by pino-http
 * through nestjs-pino's LoggerModule on the app's pino logger (so `app`, `instance`, redaction and
 * LOG_LEVEL are the other lines'): `msg` "GET /path 200", `request_id`, `method`, `path`, `route`,
 * `status`, `duration_ms`. docs/decisions.md "Request log line" has the measurement behind it.
 *
 * No module at all when LOG_LEVEL leaves info lines out: pino-http would still make a child logger, listen
 * for the answer and enter its async context on every request, for a line it then drops.
 */
export function requestLogModules(logger: Logger): DynamicModule[] {
  if (!logger.isLevelEnabled('info')) return [];
  return [requestLogModule(logger)];
}

export function requestLogModule(logger: Logger): DynamicModule {
  return LoggerModule.forRoot({
    pinoHttp: {
      logger,
      // The raw request is never serialized (it holds the headers, Authorization included).
      wrapSerializers: false,
      serializers: { req: () => undefined },
      customAttributeKeys: { responseTime: 'duration_ms' },
      customSuccessMessage: message,
      customErrorMessage: message,
      customSuccessObject: fields,
      customErrorObject: (req: RawRequest, res: ServerResponse, _error: Error, value: { duration_ms?: number }) => fields(req, res, value),
    },
  });
}
