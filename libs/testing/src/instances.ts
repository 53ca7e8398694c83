import { ALL_SERVICES, GATEWAY_APP } from '@workline/contracts';
import { createKafka } from '@workline/messaging';
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createWriteStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { apiClient } from './api';
import { eventually } from './eventually';
import { testStack } from './stack';

const ROOT = join(__dirname, '..', '..', '..');

/** An app's entry point as `npm run build` writes it (dist/ mirrors the tree; tools/stack/apps.ts mainOf for the stacks). */
export const builtMainOf = (app: string): string => join(ROOT, 'dist', 'apps', app, 'src', 'main.js');

const STOP_GRACE_MS = 20_000;

const SERVICES = new Set<string>(ALL_SERVICES);

export interface AppInstance {
  process: ChildProcess;
  /** The file its output goes to (one JSON log line per event). */
  logFile: string;
  /** SIGKILL: no shutdown hooks, as in a crash. */
  kill(): void;
  /** SIGTERM and wait for the exit (SIGKILL after a grace period, 20 s unless told). */
  stop(graceMs?: number): Promise<void>;
  /** Resolves with the exit code once the process has exited (null when killed by a signal). */
  exited: Promise<number | null>;
  /** A service's: the file it writes the port of its /metrics and /health endpoints to once they listen. */
  portFile?: string;
  /**
   * Base URL of a service's /metrics and /health endpoints (each extra service instance gets a free
   * port, so several never collide). Resolves once the service listens; rejects for the gateway (its are
   * on its own port).
   */
  opsUrl(): Promise<string>;
}

/**
 * Starts one more instance of a built app (dist/) with the test stack's environment plus `extraEnv`
 * (e.g. another PORT for a second gateway). Its output goes to <the stack's logDir>/<name>.log.
 */
export function startAppInstance(
  app: string,
  extraEnv: Record<string, string> = {},
  name = `${app}-extra-${process.pid}-${Date.now()}`,
): AppInstance {
  const { logDir } = testStack();
  mkdirSync(logDir, { recursive: true });
  const logFile = join(logDir, `${name}.log`);
  const log = createWriteStream(logFile, { flags: 'a' });
  // Services: the OS picks the port of the operational endpoints and the service writes it to a file. A fleet
  // starts each restart under its predecessor's name: the file left by that one must not be read as this one's.
  const portFile = join(logDir, `${name}.http-port`);
  rmSync(portFile, { force: true });
  const opsEnv: Record<string, string> =
    SERVICES.has(app) && extraEnv.HTTP_PORT === undefined ? { HTTP_PORT: '0', HTTP_PORT_FILE: portFile } : {};
  const child = spawn(process.execPath, [builtMainOf(app)], {
    env: { ...process.env, ...testStack().appEnv, ...opsEnv, ...extraEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.pipe(log);
  child.stderr?.pipe(log);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return {
    process: child,
    logFile,
    portFile: opsEnv.HTTP_PORT_FILE,
    exited,
    kill: () => void child.kill('SIGKILL'),
    stop: async (graceMs = STOP_GRACE_MS) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      // A graceful stop drains Kafka handlers and in-flight work; on a loaded machine that can take long,
      // and a test must not hang on it: past the grace period the instance is killed.
      const killer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(killer);
    },
    opsUrl: async () => {
      if (!SERVICES.has(app)) throw new Error(`${app} serves /metrics and /health on its own port`);
      if (extraEnv.HTTP_PORT !== undefined && extraEnv.HTTP_PORT !== '0') return `http://127.0.0.1:${extraEnv.HTTP_PORT}`;
      const port = await eventually(
        () => {
          if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}`);
          try {
            return readFileSync(portFile, 'utf8').trim() || undefined;
          } catch {
            return undefined;
          }
        },
        { what: `${name} to listen for /metrics`, timeoutMs: 60_000, intervalMs: 200 },
      );
      return `http://127.0.0.1:${port}`;
    },
  };
}

/** A TCP port that was free a moment ago (the OS picks it). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Starts one more gateway on a free port and waits until its /health is 200. */
export async function startGateway(extraEnv: Record<string, string> = {}): Promise<AppInstance & { url: string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const instance = startAppInstance(GATEWAY_APP, { PORT: String(port), PUBLIC_URL: url, ...extraEnv }, `gateway-${port}`);
  await eventually(
    async () => {
      if (instance.process.exitCode !== null) throw new Error(`the gateway on ${port} exited with ${instance.process.exitCode}`);
      return (await apiClient({}, url).GET('/health')).response.status === 200 || undefined;
    },
    { what: `the gateway on port ${port} to be healthy`, timeoutMs: 60_000, intervalMs: 250 },
  );
  return { ...instance, url };
}

type KafkaAdmin = ReturnType<ReturnType<typeof createKafka>['admin']>;
type GroupDescription = Awaited<ReturnType<KafkaAdmin['describeGroups']>>['groups'][number];

async function describeGroup(groupId: string): Promise<GroupDescription | undefined> {
  const admin = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-group-probe', instanceId: randomUUID().slice(0, 8) }).admin();
  await admin.connect();
  try {
    const { groups } = await admin.describeGroups([groupId]);
    return groups[0];
  } finally {
    await admin.disconnect();
  }
}

/** Client ids of the members of a consumer group of the test stack (e.g. `workline-webhook-dispatcher`). */
export async function consumerGroupMembers(groupId: string): Promise<string[]> {
  return (await describeGroup(groupId))?.members.map((member) => member.clientId) ?? [];
}

/** The same once the group has settled (Stable); undefined while it rebalances, when members may still leave or join. */
export async function settledGroupMembers(groupId: string): Promise<string[] | undefined> {
  const group = await describeGroup(groupId);
  return group?.state === 'Stable' ? group.members.map((member) => member.clientId) : undefined;
}
