import { callsOnly, testStack } from '@workline/testing';
import { Client } from 'pg';
import { UnitStatus } from './run-views';
import { LEASE_UNITS } from './unit-work.repository';

// It reads plans from PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

/**
 * The lease statement's plan must not follow the statistics of `status`. Statistics are taken now and then
 * (autovacuum); a 10,000-unit run that arrives after them is, to the planner, a handful of Processing units,
 * and a join that filtered on `status` in the update scanned them all for every lease (25 ms instead of
 * 0.3 ms, found with auto_explain under `npm run bench`). Here the statistics are made stale on purpose, in
 * a temporary table that stands in for platform_unit in this session only.
 */
describe('the unit lease statement under stale statistics', () => {
  const client = new Client({ connectionString: testStack().databaseUrl, application_name: 'unit lease plan' });

  beforeAll(() => client.connect());
  afterAll(() => client.end());

  it('finds every unit by its primary key, never by scanning the units of a status', async () => {
    await client.query('begin');
    try {
      // Same columns and indexes; temporary tables come first in the search path, so the statement reads this one.
      await client.query('create temporary table platform_unit (like public.platform_unit including all) on commit drop');
      const insert = (runId: string, count: number, status: string) =>
        client.query(
          `insert into platform_unit (run_id, seq, line_id, input, status, created_at)
           select $1, n, 'line', '{}'::jsonb, $3, now() from generate_series(1, $2) as n`,
          [runId, count, status],
        );
      await insert('run-done', 2_000, UnitStatus.Completed);
      await client.query('analyze platform_unit');
      // Large enough that reading it whole costs more, by the planner's own estimate, than a lookup per lease.
      await insert('run-new', 100_000, UnitStatus.Processing);

      const leases = Array.from({ length: 10 }, (_, i) => ({ id: `a${i}`, run_id: 'run-new', seq: i + 1, token: 't', worker_id: 'w' }));
      await client.query(`prepare lease_plan_probe(jsonb, timestamptz, timestamptz) as ${LEASE_UNITS.text}`);
      const plans: PlanNode[][] = [];
      // The app's prepared statement is planned for its parameters first, then generically: both must hold.
      for (const mode of ['force_custom_plan', 'force_generic_plan']) {
        await client.query(`set local plan_cache_mode = ${mode}`);
        // EXPLAIN takes no bind parameters: the leases go in as a literal.
        const explained = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `explain (format json) execute lease_plan_probe(${client.escapeLiteral(JSON.stringify(leases))}, now(), now())`,
        );
        const [row] = explained.rows;
        plans.push(nodes(row['QUERY PLAN'][0].Plan));
      }

      for (const plan of plans) {
        const unitReads = plan.filter((node) => node['Relation Name'] === 'platform_unit' && node['Node Type'] !== 'ModifyTable');
        expect(unitReads.length).toBeGreaterThan(0);
        expect(unitReads.map((node) => [node['Node Type'], node['Index Name']])).toEqual(
          unitReads.map(() => ['Index Scan', 'platform_unit_pkey']),
        );
        expect(plan.map((node) => node['Node Type'])).not.toContain('Hash Join');
      }
    } finally {
      await client.query('rollback');
    }
  });
});
