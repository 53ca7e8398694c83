import type { Sql, Statement } from '@workline/db';
import { callsOnly, type PlanNode, planNodes, preparedPlans, readsOf, testStack } from '@workline/testing';
import { Client } from 'pg';
import { checkRecord, type PerformanceKind, type WorkstreamConfig } from './record-rules';
import { prepareStore, type RecordToStore, storeRecords, TABLES } from './record-store';

// It reads plans from PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

/**
 * A batch's statement looks up the rows it neither inserted nor updated, to tell a request read again from a
 * new one (docs/decisions.md, "A request read again"). Those are a few rows, usually none, but the planner
 * cannot know it (a recordset is 100 rows to it): at 24,000 records it hashed the whole table for each batch
 * (15 ms a batch, 0.68 ms of PostgreSQL CPU per quality submission under `npm run bench`) and kept doing so
 * until the table was large enough that reading it whole cost more than 100 probes. The lookup must be a
 * probe of the key index per row, at any size and with any statistics.
 */
describe('the record batch statement under any statistics', () => {
  const client = new Client({ connectionString: testStack().databaseUrl, application_name: 'record store plans' });

  beforeAll(() => client.connect());
  afterAll(() => client.end());

  const workstream: WorkstreamConfig = {
    id: 'ws-plans',
    account_id: 'acc-plans',
    use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
    qc_score_threshold: 0.5,
    qc_sample_rate: 0,
  };

  /** A batch of `size` records as the service sends it: half replace their key, half keep it; low scores raise QC events. */
  function batch(kind: PerformanceKind, size: number): RecordToStore[] {
    return Array.from({ length: size }, (_, i) => {
      const body =
        kind === 'quality'
          ? { review_completed_at: '2026-11-27T01:00:00Z', review_score: 0.2, review_type: 'QA' }
          : { task_started_at: '2026-11-27T00:00:00Z', task_completed_at: '2026-11-27T01:00:00Z', task_count: 1 };
      const checked = checkRecord(
        kind,
        {
          workstream_id: workstream.id,
          use_case_id: 'uc',
          task_definition_id: 'td',
          worker_id: 'ann@example.com',
          unique_id: `u-${i}`,
          replace_duplicate: i % 2 === 0,
          ...body,
        },
        workstream,
      );
      if (!checked.ok) throw new Error(JSON.stringify(checked.errors));
      return { record: checked.record, workstream, rpcRequestId: `request-${i}` } as RecordToStore;
    });
  }

  /** The statement and values storeRecords sends for `items`, caught instead of run. */
  async function sent(kind: PerformanceKind, items: RecordToStore[]): Promise<{ statement: Statement; values: unknown[] }> {
    let caught: { statement: Statement; values: unknown[] } | undefined;
    const catcher: Sql = {
      query: async (statement, values = []) => {
        caught = { statement, values };
        return [];
      },
    };
    await storeRecords(catcher, prepareStore(kind, items), null);
    if (!caught) throw new Error('storeRecords sent no statement');
    return caught;
  }

  /**
   * The plans of the batch statement of `kind`, for its values and generically, against a stand-in of the record
   * table (same columns and indexes, temporary, so first in the search path) holding `rows` records, analyzed
   * or never.
   */
  async function plansOf(kind: PerformanceKind, rows: number, statistics: 'taken' | 'none'): Promise<PlanNode[][]> {
    const { table } = TABLES[kind];
    const { statement, values } = await sent(kind, batch(kind, 20));
    await client.query('begin');
    try {
      await client.query(`create temporary table ${table} (like public.${table} including all) on commit drop`);
      const times = kind === 'quality' ? 'review_completed_at, review_score' : 'task_started_at, task_completed_at, task_count';
      await client.query(
        `insert into ${table}
           (workstream_id, use_case_id, task_definition_id, unique_id, worker_id, ${times}, last_request_id, last_request_outcome)
         select 'ws-' || (n % 50), 'uc', 'td', 'u-' || n, 'w', now(), ${kind === 'quality' ? '0.9' : 'now(), 1'}, 'r-' || n, 'stored'
         from generate_series(1, $1) as n`,
        [rows],
      );
      if (statistics === 'taken') await client.query(`analyze ${table}`);
      return await preparedPlans(
        client,
        statement.text,
        values.map((value) => client.escapeLiteral(String(value))),
      );
    } finally {
      await client.query('rollback');
    }
  }

  it('a batch of 1,000 QC candidates meets its written rows by hash, never comparing every pair', async () => {
    const { statement, values } = await sent('quality', batch('quality', 1_000));
    await client.query('begin');
    try {
      await client.query(
        'create temporary table performance_quality_record (like public.performance_quality_record including all) on commit drop',
      );
      // Run for real (in a transaction rolled back) to count the rows each join compared and threw away.
      const explained = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
        text: `explain (analyze, format json) ${statement.text}`,
        values,
      });
      const nodes = planNodes(explained.rows[0]['QUERY PLAN'][0].Plan);
      const outbox = nodes.find((node) => node['Node Type'] === 'ModifyTable' && node['Relation Name'] === 'messaging_outbox');
      expect(outbox?.['Actual Rows']).toBe(1_000);
      // Joined on `id or key`, a nested loop compared all 1,000,000 pairs and removed 999,000 of them (220 ms).
      const removed = nodes.reduce((sum, node) => sum + (node['Rows Removed by Join Filter'] ?? 0), 0);
      expect(removed).toBeLessThan(1_000);
    } finally {
      await client.query('rollback');
    }
  });

  it.each([
    ['quality', 2_000],
    ['quality', 30_000],
    ['throughput', 30_000],
  ] as const)('%s, %d records: the rows left unwritten are looked up by their key, one probe each', async (kind, rows) => {
    for (const statistics of ['taken', 'none'] as const) {
      for (const plan of await plansOf(kind, rows, statistics)) {
        const reads = readsOf(plan, TABLES[kind].table);
        expect(reads.length).toBeGreaterThan(0);
        for (const [type] of reads) expect(type).toMatch(/^Index (Only )?Scan$/);
      }
    }
  });
});
