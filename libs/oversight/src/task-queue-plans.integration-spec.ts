import { PLAN_ALONG_INDEXES } from '@workline/db';
import { callsOnly, type PlanNode, planNodes, testStack } from '@workline/testing';
import { Client } from 'pg';
import { NEXT_DUE_TASK } from './assignments.repository';

// It reads plans from PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

const QUEUED_TASKS = 100_000;

/**
 * The work API's `next` must cost the tasks it looks at, not the tasks that wait, whatever the statistics say.
 * Statistics are taken now and then (autovacuum); a burst of task creations that arrives after them is, to
 * the planner, a handful of queued tasks. Then `next` read every queued task, and sorted them, on each call
 * (0.5–2 s with 100,000 queued as PostgreSQL planned it; 15 ms planned along indexes while the lease index also
 * began with `state`). A temporary table stands in for oversight_task in this session only, with the same
 * columns and indexes, and the statement runs as the app runs it (EXPLAIN ANALYZE: it locks, then rolls back).
 */
describe('the task queue under stale statistics', () => {
  const client = new Client({ connectionString: testStack().databaseUrl, application_name: 'task queue plans' });

  beforeAll(() => client.connect());
  afterAll(() => client.end());

  async function planOfNext(statistics: 'stale' | 'none'): Promise<PlanNode[]> {
    await client.query('begin');
    try {
      await client.query('create temporary table oversight_task (like public.oversight_task including all) on commit drop');
      const insert = (prefix: string, count: number, state: string, createdAt: string) =>
        client.query(
          `insert into oversight_task (id, workstream_id, account_id, configuration_id, media_key, media_type, sealed_api_key,
             state, existing_tags, created_at, updated_at)
           select $1 || n, 'ws', 'acc', 'cfg', 'media', 'image', 'sealed', $3, '[]', ${createdAt}, now()
           from generate_series(1, $2) as n`,
          [prefix, count, state],
        );
      await insert('done-', 2_000, 'COMPLETED', "now() - interval '1 day' + n * interval '1 ms'");
      if (statistics === 'stale') await client.query('analyze oversight_task');
      await insert('queued-', QUEUED_TASKS, 'QUEUED', "now() + n * interval '1 ms'");
      // A few tasks whose lease ran out, older than every queued one: they come first.
      await client.query(`update oversight_task set state = 'IN_PROGRESS', lease_expires_at = now() - interval '1 minute'
                          where id in ('done-1', 'done-2', 'done-3')`);
      await client.query(PLAN_ALONG_INDEXES);
      const explained = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) ${NEXT_DUE_TASK}`);
      const [chosen] = (await client.query<{ id: string }>(NEXT_DUE_TASK)).rows;
      // The oldest due task: the one whose lease ran out first.
      expect(chosen?.id).toBe('done-1');
      return planNodes(explained.rows[0]['QUERY PLAN'][0].Plan);
    } finally {
      await client.query('rollback');
    }
  }

  it.each(['stale', 'none'] as const)(
    'next reads a few tasks along indexes, never every queued one (statistics: %s)',
    async (statistics) => {
      const plan = await planOfNext(statistics);
      const reads = plan.filter((node) => node['Relation Name'] === 'oversight_task');
      for (const node of reads) expect(['Index Scan', 'Index Only Scan']).toContain(node['Node Type']);
      const queued = reads.find((node) => node['Index Name'] === 'oversight_task_state_created_at_id_idx');
      expect(queued).toBeDefined();
      // Each read stops after the candidates (64 of each kind), not after the 100,000 that wait.
      for (const node of reads) expect(node['Actual Rows']! * node['Actual Loops']!).toBeLessThanOrEqual(2 * 64);
    },
  );
});
