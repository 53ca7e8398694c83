import { type ChildProcess, spawn } from 'node:child_process';
import { createWriteStream, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { testStack } from './stack';

const ROOT = join(__dirname, '..', '..', '..');

export interface AppInstance {
  process: ChildProcess;
  /** SIGKILL: no shutdown hooks, as in a crash. */
  kill(): void;
  /** SIGTERM and wait for the exit. */
  stop(): Promise<void>;
}

/**
 * Starts one more instance of a built app (dist/) with the test stack's environment plus `extraEnv`
 * (e.g. another PORT for a second gateway). Its output goes to .cache/logs/test/<name>.log.
 */
export function startAppInstance(app: string, extraEnv: Record<string, string> = {}, name = `${app}-extra-${process.pid}-${Date.now()}`): AppInstance {
  const logDir = join(ROOT, '.cache', 'logs', 'test');
  mkdirSync(logDir, { recursive: true });
  const log = createWriteStream(join(logDir, `${name}.log`), { flags: 'a' });
  const child = spawn(process.execPath, [join(ROOT, 'dist', 'apps', app, 'src', 'main.js')], {
    env: { ...process.env, ...testStack().appEnv, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    process: child,
    kill: () => void child.kill('SIGKILL'),
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
