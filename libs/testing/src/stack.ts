import { readFileSync } from 'node:fs';

/** What the integration global setup started (tools/stack/jest-global-setup.ts writes it). */
export interface TestStack {
  gatewayUrl: string;
  adminToken: string;
  databaseUrl: string;
  redisUrl: string;
  kafkaBrokers: string[];
  /** pid of each app process, by app name. */
  pids: Record<string, number>;
  /** Base URL of each service's /metrics and /health endpoints, by app name. */
  opsUrls: Record<string, string>;
  /** The environment the apps were started with (see startAppInstance). */
  appEnv: Record<string, string>;
  /** Where the apps write their logs, one file each, and where startAppInstance puts those of the instances it starts. */
  logDir: string;
}

/**
 * The stack file in use: each global setup (tools/stack/jest-global-setup.ts, faults-global-setup.ts) writes
 * its stack's and points WORKLINE_STACK_FILE at it before the Jest workers start.
 */
export function stackFile(): string {
  const file = process.env.WORKLINE_STACK_FILE;
  if (!file)
    throw new Error('no test stack: WORKLINE_STACK_FILE is unset (run the suite with jest.integration.config.js or jest.faults.config.js)');
  return file;
}

export function testStack(): TestStack {
  return JSON.parse(readFileSync(stackFile(), 'utf8')) as TestStack;
}
