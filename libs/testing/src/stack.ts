import { readFileSync } from 'node:fs';
import { join } from 'node:path';

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
}

export const STACK_FILE = join(__dirname, '..', '..', '..', '.cache', 'run', 'test-stack.json');

/** The stack file in use: the fault suite's global setup points WORKLINE_STACK_FILE at its own stack. */
export const stackFile = () => process.env.WORKLINE_STACK_FILE ?? STACK_FILE;

export function testStack(): TestStack {
  return JSON.parse(readFileSync(stackFile(), 'utf8')) as TestStack;
}
