import type { LoggerService } from '@nestjs/common';
import pino, { type DestinationStream, type Level, type Logger } from 'pino';
import { currentRequestId } from './request-context';

/** The LOG_LEVEL values (Nest's names) and the pino level each one means. */
const LEVELS: Record<string, Level> = { error: 'error', warn: 'warn', log: 'info', debug: 'debug', verbose: 'trace' };

export interface JsonLoggerOptions {
  /** The app's name (`gateway`, `performance`, ...): the `app` field of every line. */
  app: string;
  /** The instance id (INSTANCE_ID): the `instance` field of every line. */
  instance: string;
  /** LOG_LEVEL: error, warn, log, debug or verbose. */
  level?: string;
  /** LOG_FORMAT: `json` (default, one JSON object a line) or `pretty` (one readable line per event). */
  format?: string;
  /** Where lines go; stdout by default (tests pass a stream). */
  destination?: DestinationStream;
}

/**
 * Keys whose values are never written to a log line: as a field of the line, or of an object one or two
 * levels below it (pino's redact paths are fixed; docs/operations.md, "What is logged").
 */
export const SECRET_KEYS: readonly string[] = [
  'authorization',
  'password',
  'secret',
  'token',
  'api_key',
  'apiKey',
  'x-api-key',
  'sealed_secret',
  'sealed_authorization',
];
const REDACT = SECRET_KEYS.flatMap((key) => [`["${key}"]`, `*["${key}"]`, `*.*["${key}"]`]);

const PRETTY_SKIP = new Set(['level', 'time', 'app', 'instance', 'msg', 'context', 'request_id']);

/** One JSON line as `time LEVEL app [context] (request_id) msg key=value ...`. */
export function prettyLine(json: string): string {
  try {
    const entry = JSON.parse(json) as Record<string, unknown>;
    const extra = Object.entries(entry)
      .filter(([key]) => !PRETTY_SKIP.has(key))
      .map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`);
    const parts = [
      String(entry.time ?? ''),
      String(entry.level ?? '')
        .toUpperCase()
        .padEnd(5),
      String(entry.app ?? ''),
      entry.context ? `[${String(entry.context)}]` : '',
      entry.request_id ? `(${String(entry.request_id)})` : '',
      String(entry.msg ?? ''),
      ...extra,
    ];
    return `${parts.filter(Boolean).join(' ')}\n`;
  } catch {
    return json;
  }
}

function prettyStdout(): DestinationStream {
  return { write: (line: string) => void process.stdout.write(prettyLine(line)) };
}

/** A pino logger: one JSON line per event with level, time, app, instance, msg and the current request_id. */
export function createPinoLogger(options: JsonLoggerOptions): Logger {
  const destination = options.destination ?? (options.format === 'pretty' ? prettyStdout() : pino.destination({ dest: 1, sync: true }));
  return pino(
    {
      level: LEVELS[options.level ?? 'log'] ?? 'info',
      base: { app: options.app, instance: options.instance },
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
      mixin: () => {
        const requestId = currentRequestId();
        return requestId ? { request_id: requestId } : {};
      },
      redact: { paths: REDACT, censor: '[redacted]' },
    },
    destination,
  );
}

/**
 * Nest's LoggerService on pino, so Nest's own lines, every `new Logger(context)` in the code and kafkajs'
 * lines (routed through Nest's logger) come out as JSON lines. A message may be a string, an Error, or an
 * object of fields with a `msg`.
 */
export class JsonLogger implements LoggerService {
  readonly pino: Logger;

  constructor(options: JsonLoggerOptions) {
    this.pino = createPinoLogger(options);
  }

  log(message: unknown, ...params: unknown[]): void {
    this.write('info', message, params);
  }

  error(message: unknown, ...params: unknown[]): void {
    this.write('error', message, params, true);
  }

  warn(message: unknown, ...params: unknown[]): void {
    this.write('warn', message, params);
  }

  debug(message: unknown, ...params: unknown[]): void {
    this.write('debug', message, params);
  }

  verbose(message: unknown, ...params: unknown[]): void {
    this.write('trace', message, params);
  }

  fatal(message: unknown, ...params: unknown[]): void {
    this.write('fatal', message, params, true);
  }

  private write(level: Level, message: unknown, params: unknown[], withStack = false): void {
    if (!this.pino.isLevelEnabled(level)) return;
    const rest = params.filter((p) => p !== undefined);
    const fields: Record<string, unknown> = {};
    // Nest passes the logger's context as the last parameter, and an error's stack before it.
    if (rest.length && typeof rest[rest.length - 1] === 'string') fields.context = rest.pop();
    if (withStack && rest.length && typeof rest[0] === 'string') fields.stack = rest.shift();
    if (rest.length) fields.details = rest.length === 1 ? rest[0] : rest;
    let msg: string;
    if (message instanceof Error) {
      msg = message.message;
      fields.stack ??= message.stack;
    } else if (message && typeof message === 'object') {
      const { msg: text, ...more } = message as Record<string, unknown>;
      Object.assign(fields, more);
      msg = typeof text === 'string' ? text : '';
    } else {
      msg = String(message);
    }
    this.pino[level](fields, msg);
  }
}
