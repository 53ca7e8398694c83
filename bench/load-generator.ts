/**
 * The load-generator process of bench/performance.ts: runs autocannon once and sends back the figures.
 * Each request carries its own id in place of __ID__ in the body; the ids answered 2xx are sent back so
 * the bench can check that every acknowledged record is in PostgreSQL.
 */
interface Context {
  id?: string;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as (options: object) => Promise<{
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}>;

process.once('message', async (options: { url: string; headers: Record<string, string>; body: string; connections: number; duration: number }) => {
  let next = 0;
  const acknowledged: string[] = [];
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        method: 'POST',
        headers: options.headers,
        setupRequest: (request: { body?: string }, context: Context) => {
          context.id = `${process.pid}-${next++}`;
          return { ...request, body: options.body.replace('__ID__', context.id) };
        },
        onResponse: (status: number, _body: string, context: Context) => {
          if (status >= 200 && status < 300 && context.id) acknowledged.push(context.id);
        },
      },
    ],
  });
  process.send!({
    requests: result.requests.total,
    seconds: result.duration,
    rps: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    status2xx: result['2xx'],
    non2xx: result.non2xx,
    errors: result.errors,
    timeouts: result.timeouts,
    acknowledged,
  }, () => process.exit(0));
});
