import { errorMessage } from '@workline/contracts';
import { type ChildProcess, spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import { fail } from './log';

/** Runs a command to completion, streaming its output; throws with the command line when it fails. */
export function run(command: string, args: string[], options: SpawnSyncOptions = {}): void {
  const result = spawnSync(command, args, { stdio: 'inherit', ...options });
  if (result.error) throw result.error;
  if (result.status !== 0) fail(`\`${[command, ...args].join(' ')}\` exited with status ${result.status}`);
}

export function commandExists(command: string): boolean {
  const result = spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' });
  return result.status === 0;
}

export function isAlive(pid: number | undefined): pid is number {
  if (!pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

export function readPid(file: string): number | undefined {
  try {
    return Number(fs.readFileSync(file, 'utf8').trim()) || undefined;
  } catch {
    return undefined;
  }
}

/** Resolves true when something accepts TCP connections on host:port within timeoutMs. */
export function portOpen(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (open: boolean) => {
      socket.destroy();
      resolve(open);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Polls check() until it returns a truthy value or the deadline passes. */
export async function waitFor<T>(
  description: string,
  check: () => T | Promise<T>,
  { timeoutMs = 60_000, intervalMs = 250, signal }: { timeoutMs?: number; intervalMs?: number; signal?: AbortSignal } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    signal?.throwIfAborted();
    try {
      const value = await check();
      if (value) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return fail(`timed out after ${timeoutMs / 1000}s waiting for ${description}${lastError ? `: ${errorMessage(lastError)}` : ''}`);
}

/** Stops a child (or a pid) with SIGTERM, then SIGKILL after graceMs. */
export async function stopProcess(childOrPid: ChildProcess | number, graceMs = 10_000): Promise<void> {
  const pid = typeof childOrPid === 'number' ? childOrPid : childOrPid.pid;
  if (!isAlive(pid)) return;
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    return;
  }
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && isAlive(pid)) await new Promise((r) => setTimeout(r, 100));
  if (isAlive(pid)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }
}

export interface SpawnPrefixedOptions {
  env?: NodeJS.ProcessEnv;
  logFile?: string;
  quiet?: boolean;
}

/** Spawns a long-running child whose output lines are prefixed with its name. */
export function spawnPrefixed(
  name: string,
  command: string,
  args: string[],
  { env, logFile, quiet = false }: SpawnPrefixedOptions = {},
): ChildProcess {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  const sink = logFile ? fs.createWriteStream(logFile, { flags: 'a' }) : undefined;
  for (const stream of [child.stdout, child.stderr]) {
    let buffered = '';
    stream.on('data', (chunk: Buffer) => {
      sink?.write(chunk);
      if (quiet) return;
      buffered += chunk.toString();
      const lines = buffered.split('\n');
      buffered = lines.pop() ?? '';
      for (const line of lines) process.stdout.write(`[${name}] ${line}\n`);
    });
  }
  child.on('exit', () => sink?.end());
  return child;
}

/**
 * Runs a command to its end, its stdout and stderr held together rather than printed; resolves with its exit
 * code (-1 when it could not be started, the reason appended to the output), never rejects.
 */
export function runCollecting(
  command: string,
  args: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv },
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', (error) => resolve({ code: -1, output: `${output}${error.message}\n` }));
    child.on('close', (code) => resolve({ code, output }));
  });
}
