/** Starts the bare Fastify baseline server (bench/baseline-server.ts) in its own process. */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

export interface BaselineRoute {
  method: 'GET' | 'POST';
  /** A Fastify path: `/v4/runs`, `/workforce/v1/assignments/:id/complete`. */
  url: string;
  status: number;
  /** A value is answered as JSON (serialised by Fastify); a string is answered as it is, as `contentType`. */
  body?: unknown;
  contentType?: string;
  /** Answer `status`/`body` this many times, then `then`. */
  limit?: number;
  then?: { status: number; body?: unknown };
}

export async function startBaselineServer(routes: BaselineRoute[]): Promise<{ base: string; stop: () => void }> {
  const child = fork(join(__dirname, '..', 'baseline-server.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send(routes);
  const [{ port }] = (await once(child, 'message')) as [{ port: number }];
  return {
    base: `http://127.0.0.1:${port}`,
    stop: () => {
      child.disconnect();
      child.kill('SIGTERM');
    },
  };
}
