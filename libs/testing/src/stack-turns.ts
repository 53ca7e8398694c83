import { afterAll, beforeAll } from '@jest/globals';
import { Client } from 'pg';
import { eventually } from './eventually';
import { adminHeaders, http } from './http';
import { testStack } from './stack';

/**
 * The integration files share one stack and run in parallel Jest workers (jest.integration.config.js). Each
 * file holds PostgreSQL advisory locks on the stack's database for its whole run:
 * - the stack, shared by default; exclusive for a file that calls `runsAloneOnStack` because it stops,
 *   kills or adds app instances (the other files' requests would wait out a stopped service or a
 *   consumer-group rebalance) or reads counters that every file moves;
 * - a resource that the files would otherwise take from one another (`takesTurnOn`), e.g. the oversight
 *   task queue: every worker leases from the one queue, so a file flagging what it does not want would flag
 *   another file's tasks.
 * The stack's lock is always taken first, so two files never wait for each other. PostgreSQL queues lock
 * requests in order, so a waiting exclusive file is not starved by shared ones that ask after it.
 */
export type SharedResource = 'oversight task queue';

/** Longer than any wait for a turn: a whole integration run. */
const TURN_WAIT_MS = 60 * 60_000;
const lockKey = (name: string) => `workline integration: ${name}`;

let aloneBecause: string | undefined;
const resources = new Set<SharedResource>();

/** The file has the stack to itself; `why` says what it does that others must not see. Call at collection (module or describe body). */
export function runsAloneOnStack(why: string): void {
  aloneBecause = why;
}

/** The file has `resource` to itself while other files share the stack. Call at collection (module or describe body). */
export function takesTurnOn(resource: SharedResource): void {
  resources.add(resource);
}

/** Registers the file's turns: the Jest setup file of the integration config calls it for every file. */
export function takeStackTurns(): void {
  let holder: Client | undefined;
  beforeAll(async () => {
    holder = new Client({ connectionString: testStack().databaseUrl, application_name: 'integration turns' });
    await holder.connect();
    const stackLock = aloneBecause ? 'pg_advisory_lock' : 'pg_advisory_lock_shared';
    await holder.query(`select ${stackLock}(hashtext($1))`, [lockKey('stack')]);
    for (const resource of [...resources].sort()) await holder.query('select pg_advisory_lock(hashtext($1))', [lockKey(resource)]);
  }, TURN_WAIT_MS);
  afterAll(async () => {
    try {
      // A lone file hands the stack back healthy: every service answering again, its consumer groups settled.
      if (aloneBecause) await stackHealthy();
    } finally {
      // Ending the session releases its locks.
      await holder?.end();
    }
  }, TURN_WAIT_MS);
}

/**
 * Twice in a row, a second apart, a fresh check (the admin token's: anonymous answers are cached) finds every
 * service answering: a consumer group that starts to rebalance right after the first check is seen.
 */
async function stackHealthy(): Promise<void> {
  const fresh = async () =>
    (await http('GET', '/health', { headers: adminHeaders(), timeoutMs: 10_000 }).catch(() => undefined))?.status === 200;
  let healthyInARow = 0;
  await eventually(
    async () => {
      healthyInARow = (await fresh()) ? healthyInARow + 1 : 0;
      return healthyInARow >= 2 || undefined;
    },
    { what: 'the stack to be healthy again (GET /health 200 twice in a row)', timeoutMs: 120_000, intervalMs: 1_000 },
  );
}
