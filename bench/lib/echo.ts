/** Starts the echo service of the benchmarks (bench/echo-server.ts) in its own process. */
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';

export const ECHO_PATTERN = 'bench.echo';

export interface EchoServer {
  /** The process's CPU time so far (user + system), in ms. */
  cpuMs(): Promise<number>;
  /** Closes the service and waits for its process to end (its consumer gone before the topic is deleted). */
  stop(): Promise<void>;
}

/** How long a stopping echo service may take to leave its consumer group before it is killed. */
const STOP_MS = 15_000;

export async function startEchoServer(brokers: string[], topic: string): Promise<EchoServer> {
  const child = fork(join(__dirname, '..', 'echo-server.js'), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    execArgv: process.env.BENCH_ECHO_NODE_ARGS?.split(' ').filter(Boolean) ?? [],
  });
  child.send({ brokers, topic });
  await once(child, 'message');
  return {
    cpuMs: async () => {
      child.send('cpu');
      const [{ cpu }] = (await once(child, 'message')) as [{ cpu: NodeJS.CpuUsage }];
      return (cpu.user + cpu.system) / 1000;
    },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = once(child, 'exit');
      const kill = setTimeout(() => child.kill('SIGKILL'), STOP_MS);
      child.disconnect();
      await exited;
      clearTimeout(kill);
    },
  };
}
