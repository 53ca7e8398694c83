import { ALL_APPS, ALL_SERVICES, type AppName, errorMessage, GATEWAY_APP, type ServiceName, serviceOpsPort } from '@workline/contracts';
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { root } from './deps';
import { ok, step } from './log';
import { spawnPrefixed, stopProcess, waitFor } from './process';

/** A started app; `expectedExit` is set before it is stopped on purpose, so its exit is not reported. */
export type AppProcess = ChildProcess & { expectedExit?: boolean };

export const mainOf = (app: AppName): string => path.join(root, 'dist', 'apps', app, 'src', 'main.js');

/**
 * Port of each service's /metrics and /health endpoints (HTTP_PORT): the ports after the gateway's, so
 * `npm start` uses 3001-3004 and each test stack its own (TEST_PORT + 1..4).
 */
export const opsPorts = (gatewayPort: number): Record<ServiceName, number> =>
  Object.fromEntries(ALL_SERVICES.map((service) => [service, serviceOpsPort(service, gatewayPort)])) as Record<ServiceName, number>;

const isService = (app: AppName): app is ServiceName => app !== GATEWAY_APP;

/**
 * Spawns one app from dist/ with `env`; its output goes to the console (prefixed) and to a log file.
 * WORKLINE_NODE_ARGS adds node options NODE_OPTIONS refuses, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
export function spawnApp(
  app: AppName,
  env: NodeJS.ProcessEnv,
  { quiet = false, logDir }: { quiet?: boolean; logDir?: string } = {},
): AppProcess {
  const logFile = logDir ? path.join(logDir, `${app}.log`) : undefined;
  const appEnv = isService(app) ? { ...env, HTTP_PORT: String(serviceOpsPort(app, Number(env.PORT))) } : env;
  const nodeArgs = (env.WORKLINE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return spawnPrefixed(app, process.execPath, [...nodeArgs, '--enable-source-maps', mainOf(app)], { env: appEnv, logFile, quiet });
}

export interface HealthAnswer {
  status: number;
  body: unknown;
}

/** The gateway's /health, with the admin token so a start that fails can show what is down. */
export async function gatewayHealth(url: string, adminToken?: string): Promise<HealthAnswer> {
  try {
    const headers: Record<string, string> = adminToken ? { authorization: `Bearer ${adminToken}` } : {};
    const response = await fetch(`${url}/health`, { headers, signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    return { status: 0, body: { message: errorMessage(error) } };
  }
}

export type Apps = Map<AppName, AppProcess>;

/** Starts the four services, then the gateway, and waits until GET /health answers 200. */
export async function startApps({
  env,
  gatewayUrl,
  quiet,
  logDir,
  timeoutMs = 120_000,
  signal,
}: {
  env: NodeJS.ProcessEnv;
  gatewayUrl: string;
  quiet?: boolean;
  logDir?: string;
  timeoutMs?: number;
  /** Aborted: stop waiting, stop the apps started and throw (npm start interrupted during start-up). */
  signal?: AbortSignal;
}): Promise<Apps> {
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  step('starting gateway, performance, oversight, platform-runs and webhook-dispatcher');
  const children: Apps = new Map();
  for (const app of ALL_APPS) children.set(app, spawnApp(app, env, { quiet, logDir }));
  for (const [app, child] of children) {
    child.on('exit', (code, exitSignal) => {
      if (!child.expectedExit) console.error(`[${app}] exited (${exitSignal ?? `status ${code}`})`);
    });
  }
  let last: HealthAnswer | undefined;
  await waitFor(
    'GET /health to answer 200',
    async () => {
      const dead = [...children].find(([, c]) => c.exitCode !== null);
      if (dead) throw new Error(`${dead[0]} exited during start-up (status ${dead[1].exitCode})`);
      last = await gatewayHealth(gatewayUrl, env.ADMIN_TOKEN);
      return last.status === 200;
    },
    { timeoutMs, intervalMs: 500, signal },
  ).catch(async (error: Error) => {
    // The caller never gets the children, so the ones that did start must not outlive this failure.
    await stopApps(children);
    // An interruption's AbortError has a read-only message, and needs no answer to explain it.
    if (last && !signal?.aborted) error.message += `\n  last /health answer: ${JSON.stringify(last.body)}`;
    throw error;
  });
  ok(`all five apps are up; /health is 200`);
  return children;
}

export async function stopApps(children: Apps): Promise<void> {
  await Promise.all(
    [...children.values()].map((child) => {
      child.expectedExit = true;
      return stopProcess(child, 15_000);
    }),
  );
}
