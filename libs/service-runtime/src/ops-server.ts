import { errorMessage } from '@workline/contracts';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';

/** One readiness condition: resolves to undefined when met, else to what is wrong. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<string | undefined>;
}

const CHECK_TIMEOUT_MS = 3000;

const withTimeout = (promise: Promise<string | undefined>): Promise<string | undefined> =>
  Promise.race([
    promise.catch((error: unknown) => errorMessage(error)),
    new Promise<string>((r) => setTimeout(() => r(`no answer within ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS).unref()),
  ]);

/** Runs the checks; 200 with each `up`, or 503 naming what is down (or that the app is shutting down). */
export async function readiness(checks: ReadinessCheck[], draining: boolean): Promise<{ status: number; body: Record<string, unknown> }> {
  if (draining) return { status: 503, body: { status: 'draining', message: 'Shutting down: not taking new work' } };
  const results = await Promise.all(checks.map(async (c) => [c.name, await withTimeout(c.check())] as const));
  const problems = results.filter(([, problem]) => problem !== undefined).map(([name, problem]) => `${name}: ${problem}`);
  const components = Object.fromEntries(
    results.map(([name, problem]) => [name, problem === undefined ? { status: 'up' } : { status: 'down', detail: problem }]),
  );
  return problems.length
    ? { status: 503, body: { status: 'unavailable', message: `Down: ${problems.join('; ')}`, components } }
    : { status: 200, body: { status: 'ok', components } };
}

/**
 * The operational HTTP endpoints of an app that has no HTTP API of its own (the Kafka services):
 * `GET /metrics` (Prometheus text), `GET /health/live` (the event loop answers) and `GET /health/ready`
 * (the readiness checks; 503 as soon as shutdown begins).
 */
export class OpsServer {
  /** Set when shutdown begins: readiness answers 503 from then on. */
  draining = false;
  private readonly server: Server;

  constructor(
    private readonly registry: Registry,
    private readonly checks: ReadinessCheck[],
  ) {
    this.server = createServer((request, response) => void this.handle(request, response));
    this.server.keepAliveTimeout = 5000;
  }

  /** Listens on `port` (0: the OS picks one); resolves with the port. */
  listen(port: number, host = '0.0.0.0'): Promise<number> {
    return new Promise((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(port, host, () => resolve((this.server.address() as AddressInfo).port));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }

  private async handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const path = (request.url ?? '/').split('?')[0];
    const json = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
      response.end(JSON.stringify(body));
    };
    try {
      if (request.method !== 'GET' && request.method !== 'HEAD') return json(405, { message: 'Only GET' });
      if (path === '/health/live') return json(200, { status: 'ok' });
      if (path === '/health/ready' || path === '/health') {
        const result = await readiness(this.checks, this.draining);
        return json(result.status, result.body);
      }
      if (path === '/metrics') {
        const text = await this.registry.metrics();
        response.writeHead(200, { 'content-type': this.registry.contentType });
        response.end(text);
        return;
      }
      json(404, { message: `No route ${path}` });
    } catch (error) {
      json(500, { message: errorMessage(error) });
    }
  }
}
