'use strict';
const path = require('node:path');
const fs = require('node:fs');
const { root } = require('./deps');
const { spawnPrefixed, stopProcess, waitFor } = require('./process');
const { ok, step } = require('./log');

const SERVICES = ['performance', 'oversight', 'platform-runs', 'webhook-dispatcher'];
const APPS = [...SERVICES, 'gateway'];

const mainOf = (app) => path.join(root, 'dist', 'apps', app, 'src', 'main.js');

/**
 * Port of each service's /metrics and /health endpoints (HTTP_PORT): the ports after the gateway's, so
 * `npm start` uses 3001-3004 and each test stack its own (TEST_PORT + 1..4).
 */
const opsPorts = (gatewayPort) => Object.fromEntries(SERVICES.map((app, index) => [app, gatewayPort + index + 1]));

/**
 * Spawns one app from dist/ with `env`; its output goes to the console (prefixed) and to a log file.
 * WORKLINE_NODE_ARGS adds node options NODE_OPTIONS refuses, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
 */
function spawnApp(app, env, { quiet = false, logDir } = {}) {
  const logFile = logDir ? path.join(logDir, `${app}.log`) : undefined;
  const ports = opsPorts(Number(env.PORT));
  const appEnv = ports[app] ? { ...env, HTTP_PORT: String(ports[app]) } : env;
  const nodeArgs = (env.WORKLINE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  return spawnPrefixed(app, process.execPath, [...nodeArgs, '--enable-source-maps', mainOf(app)], { env: appEnv, logFile, quiet });
}

/** The gateway's /health, with the admin token so a start that fails can show what is down. */
async function gatewayHealth(url, adminToken) {
  try {
    const headers = adminToken ? { authorization: `Bearer ${adminToken}` } : {};
    const response = await fetch(`${url}/health`, { headers, signal: AbortSignal.timeout(5000) });
    return { status: response.status, body: await response.json() };
  } catch (error) {
    return { status: 0, body: { message: error.message } };
  }
}

/** Starts the four services, then the gateway, and waits until GET /health answers 200. */
async function startApps({ env, gatewayUrl, quiet, logDir, timeoutMs = 120_000 }) {
  if (logDir) fs.mkdirSync(logDir, { recursive: true });
  step('starting gateway, performance, oversight, platform-runs and webhook-dispatcher');
  const children = new Map();
  for (const app of APPS) children.set(app, spawnApp(app, env, { quiet, logDir }));
  for (const [app, child] of children) {
    child.on('exit', (code, signal) => {
      if (!child.expectedExit) console.error(`[${app}] exited (${signal ?? `status ${code}`})`);
    });
  }
  let last;
  await waitFor(
    'GET /health to answer 200',
    async () => {
      const dead = [...children].find(([, c]) => c.exitCode !== null);
      if (dead) throw new Error(`${dead[0]} exited during start-up (status ${dead[1].exitCode})`);
      last = await gatewayHealth(gatewayUrl, env.ADMIN_TOKEN);
      return last.status === 200;
    },
    { timeoutMs, intervalMs: 500 },
  ).catch(async (error) => {
    if (last) error.message += `\n  last /health answer: ${JSON.stringify(last.body)}`;
    // The caller never gets the children, so the ones that did start must not outlive this failure.
    await stopApps(children);
    throw error;
  });
  ok(`all five apps are up; /health is 200`);
  return children;
}

async function stopApps(children) {
  await Promise.all(
    [...children.values()].map((child) => {
      child.expectedExit = true;
      return stopProcess(child, 15_000);
    }),
  );
}

module.exports = { APPS, SERVICES, opsPorts, spawnApp, startApps, stopApps, gatewayHealth, mainOf };
