/**
 * What one request log line costs the gateway: a Nest app on Fastify (the gateway's adapter, its request-id
 * hook and its JSON logger writing to a file under .cache/bench-logging, synchronously as on stdout) answering GET /health/live, in
 * three variants run in the same process tree, interleaved round by round so the machine's load hits each
 * alike:
 *
 * - `none`: the request-id hook (echo X-Request-Id, AsyncLocalStorage), no request log line (the baseline);
 * - `hook`: today's gateway: the same hook plus its `onResponse` hook writing one line through JsonLogger;
 * - `nestjs-pino`: nestjs-pino's LoggerModule (pino-http as Nest middleware, via @fastify/middie) writing
 *   the same line (same fields, secrets redacted) through the same pino instance.
 *
 * Prints, per variant, requests per second and the server's CPU time per request, beside the baseline's
 * and as ratios, then checks each variant's file: one line per request (none for the baseline) and no
 * trace of the Authorization header every request carries. Run: `npm run bench:logging` (BENCH_LOGGING_SECONDS per round, default 3; 3
 * rounds).
 */
import 'reflect-metadata';
import { Controller, Get, Logger as NestLogger, Module, type DynamicModule } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { createPinoLogger, JsonLogger } from '@workline/observability';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { fork, type ChildProcess } from 'node:child_process';
import pino, { type DestinationStream } from 'pino';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { UNROUTED } from '../apps/gateway/src/http/metrics';
import { pathOf } from '../apps/gateway/src/http/problem';
import { installRequestIds, requestIdOf } from '../apps/gateway/src/http/request-id';
import { requestLogModule } from '../apps/gateway/src/http/request-log';

type Autocannon = (options: object) => Promise<{ requests: { total: number }; non2xx: number; errors: number }>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

const VARIANTS = ['none', 'hook', 'nestjs-pino'] as const;
type Variant = (typeof VARIANTS)[number];

@Controller('health')
class LiveController {
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }
}

const LOG_DIR = join(process.cwd(), '.cache', 'bench-logging');
const logFile = (variant: Variant) => join(LOG_DIR, `${variant}.log`);
const SECRET = 'secret-never-logged';

function moduleFor(variant: Variant, destination: DestinationStream): DynamicModule {
  const imports = variant === 'nestjs-pino' ? [requestLogModule(createPinoLogger({ app: 'gateway', instance: 'bench', destination }))] : [];
  return { module: BenchModule, controllers: [LiveController], imports };
}

@Module({})
class BenchModule {}

/** The gateway's request log before nestjs-pino: one line from an onResponse hook through JsonLogger. */
function installHandWrittenLog(fastify: FastifyInstance): void {
  const logger = new NestLogger('http');
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

const serverOptions: FastifyServerOptions = { genReqId: requestIdOf };

/** The server side: started in a child process, answers the parent's `cpu` messages with its CPU time. */
async function serve(variant: Variant): Promise<void> {
  const destination = pino.destination({ dest: logFile(variant), sync: true });
  const jsonLogger = new JsonLogger({ app: 'gateway', instance: 'bench', destination });
  NestLogger.overrideLogger(jsonLogger);
  const app = await NestFactory.create<NestFastifyApplication>(moduleFor(variant, destination), new FastifyAdapter(serverOptions), {
    logger: jsonLogger,
  });
  const fastify = app.getHttpAdapter().getInstance();
  installRequestIds(fastify);
  if (variant === 'hook') installHandWrittenLog(fastify);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = fastify.server.address();
  process.on('message', (message) => {
    if (message === 'cpu') {
      const usage = process.cpuUsage();
      process.send!({ cpuMicros: usage.user + usage.system });
    }
  });
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  process.once('disconnect', () => void app.close().then(() => process.exit(0)));
}

interface Server {
  child: ChildProcess;
  port: number;
}

const next = <T>(child: ChildProcess): Promise<T> => new Promise((resolve) => child.once('message', (m) => resolve(m as T)));

async function start(variant: Variant): Promise<Server> {
  const child = fork(__filename, [variant], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const { port } = await next<{ port: number }>(child);
  return { child, port };
}

async function cpuOf(server: Server): Promise<number> {
  const reply = next<{ cpuMicros: number }>(server.child);
  server.child.send('cpu');
  return (await reply).cpuMicros;
}

interface Round {
  requests: number;
  rps: number;
  cpuMicrosPerRequest: number;
}

async function round(server: Server, seconds: number): Promise<Round> {
  const url = `http://127.0.0.1:${server.port}/health/live`;
  await autocannon({ url, connections: 10, duration: 1 }); // warm-up
  const before = await cpuOf(server);
  const result = await autocannon({ url, connections: 10, duration: seconds, headers: { authorization: `Bearer ${SECRET}` } });
  const cpu = (await cpuOf(server)) - before;
  const requests = result.requests.total;
  if (result.non2xx || result.errors) throw new Error(`${result.non2xx} non-2xx answers and ${result.errors} errors`);
  return { requests, rps: requests / seconds, cpuMicrosPerRequest: cpu / requests };
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_LOGGING_SECONDS ?? 3);
  const rounds = 3;
  rmSync(LOG_DIR, { recursive: true, force: true });
  mkdirSync(LOG_DIR, { recursive: true });
  const servers = new Map<Variant, Server>();
  for (const variant of VARIANTS) servers.set(variant, await start(variant));
  const results = new Map<Variant, Round[]>(VARIANTS.map((v) => [v, []]));
  try {
    for (let r = 0; r < rounds; r++)
      for (const variant of VARIANTS) results.get(variant)!.push(await round(servers.get(variant)!, seconds));
  } finally {
    for (const server of servers.values()) server.child.disconnect();
  }
  const figures = VARIANTS.map((variant) => {
    const runs = results.get(variant)!;
    const text = readFileSync(logFile(variant), 'utf8');
    const lines = text.split('\n').filter((line) => line.includes('"duration_ms"'));
    if (text.includes(SECRET)) throw new Error(`${variant}: the Authorization header reached the log`);
    const expected = variant === 'none' ? 0 : runs.reduce((sum, x) => sum + x.requests, 0);
    // The warm-up requests are logged too: at least one line per measured request.
    if (variant === 'none' ? lines.length !== 0 : lines.length < expected)
      throw new Error(`${variant}: ${lines.length} request lines for ${expected} requests`);
    return { variant, rps: median(runs.map((x) => x.rps)), cpu: median(runs.map((x) => x.cpuMicrosPerRequest)), sample: lines[0] };
  });
  const base = figures[0];
  console.log(
    `request logging, GET /health/live, 10 connections, ${rounds} rounds of ${seconds} s, medians (load average ` +
      `${(await import('node:os')).loadavg()[0].toFixed(2)})`,
  );
  console.log('variant        req/s    ratio   CPU µs/req  extra µs/req  ratio');
  for (const f of figures) {
    console.log(
      `${f.variant.padEnd(12)} ${f.rps.toFixed(0).padStart(7)}  ${(f.rps / base.rps).toFixed(3).padStart(6)}  ` +
        `${f.cpu.toFixed(1).padStart(10)}  ${(f.cpu - base.cpu).toFixed(1).padStart(12)}  ` +
        `${(f.cpu / base.cpu).toFixed(3).padStart(6)}`,
    );
  }
  for (const f of figures) if (f.sample) console.log(`${f.variant} line: ${f.sample}`);
}

const variant = process.argv[2] as Variant | undefined;
if (variant && VARIANTS.includes(variant)) {
  void serve(variant);
} else {
  main().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
}
