import { afterAll, beforeAll, expect } from '@jest/globals';
import fs from 'node:fs';
import { ALL_APPS, type AppName } from '@workline/contracts';
import type { Schemas } from '@workline/client';
import { Client } from 'pg';
import { adminClient } from './api';
import { eventually } from './eventually';
import { testStack } from './stack';

/**
 * The integration files share one stack and run in parallel Jest workers (jest.integration.config.js). Each
 * file holds PostgreSQL advisory locks on the stack's database for its whole run, one per app of the stack:
 * - shared on every app by default;
 * - exclusive on every app for a file that calls `runsAloneOnStack`: it stops, kills or adds instances of
 *   apps that every file calls (the others' requests would wait out a stopped service or a consumer-group
 *   rebalance), or it reads counters that every file moves;
 * - exclusive on some apps only, for a file that calls `disturbsOnly`: it stops, kills or adds instances of
 *   those apps and calls no app but those and the ones it names, so it runs beside a file like it whose apps
 *   are others (the dispatcher's crash tests beside the performance service's), never beside one that calls
 *   what it disturbs;
 * - shared on some apps only, for a file that calls `callsOnly`: it calls no other app, so it runs beside a
 *   file that disturbs others (a library's tests, which call no app at all, beside any file);
 * - exclusive on a resource that the files would otherwise take from one another (`takesTurnOn`), e.g. the
 *   oversight task queue: every worker leases from the one queue, so a file flagging what it does not want
 *   would flag another file's tasks; for its whole run, or only while one describe block of it runs
 *   (`takesTurnOnInThisBlock`), when only that block creates or leases what the resource is about.
 * Every file takes its locks in one order (the apps by name, then the resources), so two files never wait for
 * each other; a block's resource is taken after the file's app locks, and its holder waits for nothing else
 * while it holds it. PostgreSQL queues lock requests in order, so a waiting exclusive file is not starved by shared
 * ones that ask after it.
 */
export type SharedResource = 'oversight task queue';

/** Longer than any wait for a turn: a whole integration run. */
const TURN_WAIT_MS = 60 * 60_000;
const lockKey = (name: string) => `workline integration: ${name}`;

type Mode = 'shared' | 'exclusive';
/** The apps the file has to itself (with why) and those it shares: by default it shares every app. */
let appTurns: { exclusive: readonly AppName[]; shared: readonly AppName[]; why?: string } = { exclusive: [], shared: ALL_APPS };
const resources = new Set<SharedResource>();

/** The file has the stack to itself; `why` says what it does that others must not see. Call at collection (module or describe body). */
export function runsAloneOnStack(why: string): void {
  appTurns = { exclusive: ALL_APPS, shared: [], why };
}

/**
 * The file stops, kills or adds instances of `disturbs` only, and calls (over HTTP or its topics) no app but
 * those and `calls`: it has those apps to itself and shares `calls` (Kafka, PostgreSQL and Redis are everyone's).
 * Call at collection (module or describe body).
 */
export function disturbsOnly(disturbs: AppName[], why: string, { calls }: { calls: AppName[] }): void {
  appTurns = { exclusive: disturbs, shared: calls, why };
}

/**
 * The file calls (over HTTP, its topics or a gateway it starts, whose readiness calls every app) no app but
 * `apps`: it shares only those, and runs beside a file that disturbs others. Call at collection (module or describe body).
 */
export function callsOnly(apps: AppName[]): void {
  appTurns = { exclusive: [], shared: apps };
}

/** The file has `resource` to itself while other files share the stack. Call at collection (module or describe body). */
export function takesTurnOn(resource: SharedResource): void {
  resources.add(resource);
}

/** The file's session, which holds its turns (connected before the file's first block starts). */
let holder: Client | undefined;
/** What the file's blocks and inTurnOn calls waited for and held, for the turn log. */
const blockTurns: { resource: SharedResource; waited: number; held: number }[] = [];

/**
 * The describe block it is called in has `resource` to itself, from before its first test to after its last,
 * while the rest of the file shares it with other files: for a file of which one block creates or leases oversight
 * tasks and the others do not. Call in the block's body (before its own beforeAll hooks, which then run in the turn).
 */
export function takesTurnOnInThisBlock(resource: SharedResource): void {
  let release: (() => Promise<void>) | undefined;
  beforeAll(async () => {
    release = await takeTurn(resource);
  }, TURN_WAIT_MS);
  afterAll(() => release?.(), TURN_WAIT_MS);
}

/**
 * Runs `work` with `resource` to itself, the rest of the test sharing it: e.g. the part of a test that creates and
 * leases its oversight tasks, and not its wait for the events they cause afterwards.
 */
export async function inTurnOn<T>(resource: SharedResource, work: () => Promise<T>): Promise<T> {
  const release = await takeTurn(resource);
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Takes `resource` on the file's session (after its app locks): what gives it back. */
async function takeTurn(resource: SharedResource): Promise<() => Promise<void>> {
  const asked = Date.now();
  await holder!.query('select pg_advisory_lock(hashtext($1))', [lockKey(resource)]);
  const turn = { resource, waited: Date.now() - asked, held: 0 };
  blockTurns.push(turn);
  const granted = Date.now();
  return async () => {
    await holder!.query('select pg_advisory_unlock(hashtext($1))', [lockKey(resource)]);
    turn.held = Date.now() - granted;
  };
}

/** The locks a file takes, in the one order every file takes them in. */
function turnsOfThisFile(): { key: string; mode: Mode }[] {
  const apps = [...ALL_APPS].sort().flatMap((app): { key: string; mode: Mode }[] => {
    if (appTurns.exclusive.includes(app)) return [{ key: lockKey(`app ${app}`), mode: 'exclusive' }];
    return appTurns.shared.includes(app) ? [{ key: lockKey(`app ${app}`), mode: 'shared' }] : [];
  });
  return [...apps, ...[...resources].sort().map((resource) => ({ key: lockKey(resource), mode: 'exclusive' as const }))];
}

/** Registers the file's turns: the Jest setup file of the integration config calls it for every file. */
export function takeStackTurns(): void {
  let asked = 0;
  let granted = 0;
  beforeAll(async () => {
    asked = Date.now();
    holder = new Client({ connectionString: testStack().databaseUrl, application_name: 'integration turns' });
    await holder.connect();
    for (const { key, mode } of turnsOfThisFile())
      await holder.query(`select ${mode === 'shared' ? 'pg_advisory_lock_shared' : 'pg_advisory_lock'}(hashtext($1))`, [key]);
    granted = Date.now();
  }, TURN_WAIT_MS);
  afterAll(async () => {
    try {
      // A disturbing file hands its apps back healthy: answering again, their consumer groups settled.
      if (appTurns.exclusive.length) await appsHealthy(appTurns.exclusive);
    } finally {
      // Ending the session releases its locks.
      await holder?.end();
      logTurn({
        file: expect.getState().testPath ?? '?',
        disturbs: appTurns.exclusive,
        why: appTurns.why,
        ...(blockTurns.length ? { blocks: blockTurns } : {}),
        asked,
        granted,
        released: Date.now(),
      });
    }
  }, TURN_WAIT_MS);
}

type Turn = {
  file: string;
  disturbs: readonly AppName[];
  why?: string;
  /** The blocks' turns (takesTurnOnInThisBlock): how long each waited for its resource and held it, ms. */
  blocks?: { resource: SharedResource; waited: number; held: number }[];
  asked: number;
  granted: number;
  released: number;
};

/**
 * With WORKLINE_TURN_LOG set (a file path), each file appends when it asked for its turn, got it and gave it back,
 * one JSON line per file, so a run shows where its time goes (docs/decisions.md, "Integration files in parallel").
 */
function logTurn(turn: Turn): void {
  const log = process.env.WORKLINE_TURN_LOG;
  if (log && turn.granted) fs.appendFileSync(log, `${JSON.stringify(turn)}\n`);
}

/**
 * Twice in a row, a second apart, a fresh check (the admin token's: anonymous answers are cached) finds the apps
 * answering: a consumer group that starts to rebalance right after the first check is seen. Another file may be
 * disturbing other apps meanwhile, so only these apps' components count.
 */
async function appsHealthy(apps: readonly AppName[]): Promise<void> {
  const fresh = async () => {
    const health = await adminClient()
      .GET('/health', { signal: AbortSignal.timeout(10_000) })
      .catch(() => undefined);
    const whole = apps.length === ALL_APPS.length ? health?.response.status === 200 : true;
    // 200 and 503 carry the same view of the components.
    const components = (health?.data ?? (health?.error as Schemas['HealthAnswer'] | undefined))?.components;
    return whole && apps.every((app) => components?.[app]?.status === 'up');
  };
  let healthyInARow = 0;
  await eventually(
    async () => {
      healthyInARow = (await fresh()) ? healthyInARow + 1 : 0;
      return healthyInARow >= 2 || undefined;
    },
    { what: `${apps.join(', ')} to be healthy again (up in GET /health twice in a row)`, timeoutMs: 120_000, intervalMs: 1_000 },
  );
}
