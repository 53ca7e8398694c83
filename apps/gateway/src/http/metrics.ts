import type { IdentityObserver } from '@workline/identity';
import type { FastifyInstance } from 'fastify';
import { AppMetrics } from '@workline/observability';
import { Counter, Histogram } from 'prom-client';

/** Route label of requests the router did not match (404s). */
export const UNROUTED = 'unrouted';

/**
 * The gateway's Prometheus metrics: the app registry every app has (process metrics, and what libraries add
 * to it, such as the database pool's), plus its HTTP and authentication metrics. Requests are labelled by
 * route pattern (`/v4/runs/:id`), never by the raw path, so ids do not multiply the series.
 */
export class GatewayMetrics extends AppMetrics {
  private readonly requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    registers: [this.registry],
  });

  private readonly latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from the request arriving to the last byte of the answer, by method, route pattern and status',
    labelNames: ['method', 'route', 'status'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  private readonly passwordChecks = new Counter({
    name: 'auth_password_checks_total',
    help: 'Passwords checked with scrypt (cache misses of HTTP Basic authentication that the failed-authentication limiter let through)',
    registers: [this.registry],
  });

  private readonly identityLookups = new Counter({
    name: 'auth_identity_lookups_total',
    help:
      'Identities (API keys, accounts, workers) looked up in PostgreSQL by authentication: misses of the gateway ' +
      'cache of verified principals',
    labelNames: ['kind'],
    registers: [this.registry],
  });

  identityObserver(): IdentityObserver {
    return { passwordChecked: () => this.passwordChecks.inc(), lookedUp: (kind) => this.identityLookups.inc({ kind }) };
  }

  /** Counts and times every answer, from the request's arrival (refusals by hooks and parsers included). */
  install(fastify: FastifyInstance): void {
    fastify.addHook('onResponse', (request, reply, done) => {
      const labels = { method: request.method, route: request.routeOptions.url ?? UNROUTED, status: String(reply.statusCode) };
      this.latency.observe(labels, reply.elapsedTime / 1000);
      this.requests.inc(labels);
      done();
    });
  }
}
