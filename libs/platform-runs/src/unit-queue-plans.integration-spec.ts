import { beginTransaction, type Planning, type Statement } from '@workline/db';
import { callsOnly, type PlanNode, preparedPlans, readsOf, testStack } from '@workline/testing';
import { Client } from 'pg';
import { UnitStatus } from './run-views';
import { UNIT_CLAIMS } from './unit-reservations';
import { COUNT_LEASED_UNITS } from './unit-lease.metrics';
import { FINISH_ASSIGNMENTS, LEASE_UNITS, LOCK_ASSIGNMENTS } from './unit-work.repository';

// It reads plans from PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

const reads = (plan: PlanNode[], table = 'platform_unit') => readsOf(plan, table);

/**
 * The unit queue's statements must not follow the statistics of `status`. Statistics are taken now and then
 * (autovacuum); a 10,000-unit run that arrives after them is, to the planner, a handful of Processing units.
 * Then a lease that filtered on `status` in its update read every Processing unit for each lease (25 ms instead
 * of 0.08 ms), and a claim read and sorted them all for its oldest few (50 ms), found with auto_explain under
 * `npm run bench`. Here the statistics are made stale on purpose, in a temporary table that stands in for
 * platform_unit in this session only; each statement is planned as the app plans it, for its parameters and
 * generically (a prepared statement is planned both ways).
 */
describe('the unit queue statements under stale statistics', () => {
  const client = new Client({ connectionString: testStack().databaseUrl, application_name: 'unit queue plans' });

  beforeAll(() => client.connect());
  afterAll(() => client.end());

  /**
   * The plans of `s` with `values` (as SQL literals), in a transaction planned so, against a table of 100,000
   * Processing units (and their 100,000 assignments) whose statistics were taken when it held 2,000 Completed
   * ones, or never taken.
   */
  async function plansOf(s: Statement, values: string[], planning: Planning, statistics: 'stale' | 'none'): Promise<PlanNode[][]> {
    await client.query(beginTransaction(planning));
    try {
      // Same columns and indexes; temporary tables come first in the search path, so the statement reads this one.
      for (const table of ['platform_unit', 'platform_unit_assignment']) {
        await client.query(`create temporary table ${table} (like public.${table} including all) on commit drop`);
      }
      // Each unit of the new run is leased, its assignment waiting for its outcome.
      const insert = (runId: string, count: number, status: string) =>
        client.query(
          `with units as (
             insert into platform_unit (run_id, seq, line_id, input, status, created_at)
             select $1, n, 'line', '{}'::jsonb, $3, now() from generate_series(1, $2) as n
             returning run_id, seq
           )
           insert into platform_unit_assignment (id, run_id, seq, worker_id, expires_at, created_at)
           select run_id || '-' || seq, run_id, seq, 'w', now(), now() from units`,
          [runId, count, status],
        );
      await insert('run-done', 2_000, UnitStatus.Completed);
      if (statistics === 'stale') await client.query('analyze platform_unit, platform_unit_assignment');
      // Large enough that reading it whole costs more, by the planner's own estimate, than reading a few rows by key.
      await insert('run-new', 100_000, UnitStatus.Processing);
      return await preparedPlans(client, s.text, values);
    } finally {
      await client.query('rollback');
    }
  }

  it('a lease finds every unit by its primary key, never by reading the units of a status', async () => {
    const leases = Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, run_id: 'run-new', seq: i + 1, token: 't', worker_id: 'w' }));
    const values = [client.escapeLiteral(JSON.stringify(leases)), 'now()', 'now()'];
    // A lease is one statement of its own, planned as PostgreSQL sees fit: its form alone keeps it on the key.
    const plans = [
      ...(await plansOf(LEASE_UNITS, values, 'statistics', 'none')),
      ...(await plansOf(LEASE_UNITS, values, 'statistics', 'stale')),
    ];
    for (const plan of plans) {
      expect(reads(plan).length).toBeGreaterThan(0);
      expect(reads(plan)).toEqual(reads(plan).map(() => ['Index Scan', 'platform_unit_pkey']));
      expect(plan.map((node) => node['Node Type'])).not.toContain('Hash Join');
    }
  });

  it('a claim reads the oldest units along the claim index and stops, never sorting every Processing unit', async () => {
    for (const [statement, index] of [
      [UNIT_CLAIMS.any.free, 'platform_unit_status_created_at_run_id_seq_idx'],
      [UNIT_CLAIMS.line.free, 'platform_unit_status_line_id_created_at_run_id_seq_idx'],
    ] as const) {
      const values = ["'token'", 'now()', '16', "now() + interval '10 seconds'", statement === UNIT_CLAIMS.line.free ? "'line'" : 'null'];
      for (const plan of [
        ...(await plansOf(statement, values, 'along-indexes', 'none')),
        ...(await plansOf(statement, values, 'along-indexes', 'stale')),
      ]) {
        const types = plan.map((node) => node['Node Type']);
        expect(types).not.toContain('Sort');
        expect(types).not.toContain('Bitmap Heap Scan');
        expect(reads(plan)).toContainEqual(['Index Scan', index]);
      }
    }
  });

  it('an outcome locks its assignments by primary key and sorts only those, never reading every assignment in lock order', async () => {
    // A sort ruled out by the planner settings made this read all 100,000 assignments along (run_id, seq), in
    // the lock order, keeping ten: 2.3 ms a batch with 15,000 assignments under `npm run bench`, growing with the table.
    const ids = Array.from({ length: 10 }, (_, i) => `run-new-${i * 7_000 + 1}`);
    const values = [client.escapeLiteral(`{${ids.join(',')}}`)];
    for (const plan of [
      ...(await plansOf(LOCK_ASSIGNMENTS, values, 'along-indexes', 'none')),
      ...(await plansOf(LOCK_ASSIGNMENTS, values, 'along-indexes', 'stale')),
    ]) {
      expect(reads(plan, 'platform_unit_assignment')).toEqual([['Index Scan', 'platform_unit_assignment_pkey']]);
      expect(reads(plan)).toEqual([['Index Scan', 'platform_unit_pkey']]);
      expect(plan.map((node) => node['Node Type'])).toContain('Sort');
    }
  });

  it('outcomes tried in one statement lock by primary key and write units by primary key, whatever the statistics', async () => {
    // One statement of its own, outside any transaction: planned as PostgreSQL sees fit, like a lease.
    const ids = Array.from({ length: 10 }, (_, i) => `run-new-${i * 7_000 + 1}`);
    const rows = ids.map((id) => ({ id, worker_id: 'w', status: UnitStatus.Completed, outcome: 'completed', output: {}, reason: null }));
    const values = [client.escapeLiteral(JSON.stringify(rows)), client.escapeLiteral(`{${ids.join(',')}}`), 'now()'];
    for (const plan of [
      ...(await plansOf(FINISH_ASSIGNMENTS, values, 'statistics', 'none')),
      ...(await plansOf(FINISH_ASSIGNMENTS, values, 'statistics', 'stale')),
    ]) {
      expect(reads(plan, 'platform_unit_assignment').length).toBeGreaterThan(0);
      expect(reads(plan, 'platform_unit_assignment')).toEqual(
        reads(plan, 'platform_unit_assignment').map(() => ['Index Scan', 'platform_unit_assignment_pkey']),
      );
      expect(reads(plan).length).toBeGreaterThan(0);
      expect(reads(plan)).toEqual(reads(plan).map(() => ['Index Scan', 'platform_unit_pkey']));
    }
  });

  it('the leased-units gauge reads the open assignments along their index, never every waiting unit', async () => {
    for (const plan of [
      ...(await plansOf(COUNT_LEASED_UNITS, [], 'along-indexes', 'none')),
      ...(await plansOf(COUNT_LEASED_UNITS, [], 'along-indexes', 'stale')),
    ]) {
      // The stand-in's copy of platform_unit_assignment_open_idx carries PostgreSQL's default name for its column.
      expect(reads(plan, 'platform_unit_assignment').map(([, index]) => index)).toEqual(['platform_unit_assignment_expires_at_idx']);
      expect(reads(plan)).toEqual([['Index Scan', 'platform_unit_pkey']]);
    }
  });
});
