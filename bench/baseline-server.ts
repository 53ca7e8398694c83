/**
 * The baseline HTTP server of the benchmarks: a bare Fastify app in its own process that answers the
 * routes it is given with fixed statuses and bodies (after parsing the JSON request body, as the gateway
 * does), doing nothing else. What the machine can do over HTTP, for the Workline figures to be set against.
 * Started through `startBaselineServer` (bench/lib/baseline.ts).
 */
import Fastify from 'fastify';
import type { BaselineRoute } from './lib/baseline';

process.once('message', async (routes: BaselineRoute[]) => {
  const app = Fastify({ logger: false, bodyLimit: 64 * 1024 * 1024 });
  for (const route of routes) {
    let answered = 0;
    app.route({
      method: route.method,
      url: route.url,
      handler: async (_request, reply) => {
        const { status, body } = route.limit !== undefined && answered >= route.limit ? route.then! : route;
        answered++;
        reply.code(status);
        if (typeof body === 'string') reply.type(route.contentType ?? 'application/json; charset=utf-8');
        return body === undefined ? reply.send() : reply.send(body);
      },
    });
  }
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  process.send!({ port: typeof address === 'object' && address ? address.port : 0 });
  process.once('disconnect', () => void app.close().then(() => process.exit(0)));
});
