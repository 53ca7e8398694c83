import { DbPool, type Statement, statement } from '@workline/db';
import { callsOnly, type PlanNode, planNodes, readsOf, testStack } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { escapeLiteral } from 'pg';
import { DeliveryStore, type OutcomeRow, outcomeRowsJson, RECORD } from './delivery-store';

// It reads plans from PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** Deliveries the table holds when the statements are planned, and the batch each statement is given. */
const SMALL = 20;
/** Deliveries added afterwards: what a burst of webhooks adds before autovacuum analyzes the table. */
const GROWTH = 20_000;

/**
 * A prepared statement keeps the generic plan PostgreSQL makes for it (from its sixth execution) until its
 * table is analyzed again. Made while the delivery table held a few pages, the outcome statement's plan read
 * the table whole for every batch, and went on doing so as a burst grew it: 13 ms a batch and PostgreSQL at
 * more than a core under `BENCH_ONLY=webhooks npm run bench`, found with auto_explain. Here each statement
 * runs as the dispatcher runs it (DeliveryStore on a one-connection DbPool, on a delivery table of its own),
 * first on a small table, then it is explained on that same connection after the table grew.
 */
/** The outcome statement as it was before 2026-11-29: its deliveries found through the join alone. */
const IDS_AS_AN_ARRAY = 'd.id = any (array(select id from outcome)) and ';
const RECORD_JOIN_ONLY: Statement = statement('delivery_record_join_only', RECORD.text.replace(IDS_AS_AN_ARRAY, ''));

describe('the dispatcher statements after the delivery table grew', () => {
  const schema = `delivery_plans_${randomBytes(4).toString('hex')}`;
  const url = new URL(testStack().databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const admin = new DbPool(url.toString(), { size: 1 });
  let runs = 0;
  const run = (pool: DbPool, sql: string, values: unknown[] = []) => pool.query(statement(`${schema}_${++runs}`, sql), values);

  beforeAll(async () => {
    await run(admin, `create schema ${schema}`);
    for (const table of ['delivery', 'delivery_attempt']) {
      // Never analyzed meanwhile: the plans made on the small table stay the ones the statements run with.
      await run(admin, `create table ${schema}.${table} (like public.${table} including all) with (autovacuum_enabled = false)`);
    }
  });

  afterAll(async () => {
    await run(admin, `drop schema ${schema} cascade`);
    await admin.end();
  });

  /** `count` deliveries named `prefix-n`: pending and leased under `token`, or delivered long ago. */
  const insert = (prefix: string, count: number, state: 'leased' | 'delivered') =>
    run(
      admin,
      `insert into delivery (id, account_id, event_type, url, body, signing, status, next_attempt_at, lease_token, lease_until)
       select $1 || '-' || g, 'acc', 'task.completed', 'https://client.example/hook', repeat('x', 300), 'none',
         case when $3 = 'leased' then 'pending' else 'delivered' end, now() - interval '1 minute',
         case when $3 = 'leased' then 'token' end, case when $3 = 'leased' then now() + interval '1 hour' end
       from generate_series(1, $2) g`,
      [prefix, count, state],
    );

  const batch = Array.from({ length: SMALL }, (_, i) => `small-${i + 1}`);
  const outcomes = (token: string): OutcomeRow[] =>
    batch.map((id) => ({
      id,
      lease_token: token,
      attempted_at: new Date().toISOString(),
      duration_ms: 3,
      status_code: 200,
      error: null,
      response_excerpt: null,
      success: true,
      status: 'delivered',
      round_failures: 0,
      wait_ms: null,
      request_id: null,
    }));
  const claimRequest = { limit: SMALL, maxBytes: 1_000_000, fullOrigins: [], originRooms: {}, defaultRoom: SMALL, token: 'nobody' };

  /**
   * The plan each statement runs with after the growth: its statements ran on a table of SMALL deliveries
   * (as many times as a generic plan takes), then GROWTH more were added and each is explained, analyzed,
   * on the same connection with the batch's own leases.
   */
  async function plansAfterGrowth(
    sequentialScans: boolean,
  ): Promise<Record<'record' | 'release' | 'claim' | 'recordJoinOnly', PlanNode[]>> {
    await run(admin, 'truncate delivery, delivery_attempt');
    await insert('small', SMALL, 'leased');
    // One connection: the statements prepared on it are the ones explained.
    const db = new DbPool(url.toString(), { size: 1, sequentialScans });
    const store = new DeliveryStore(db, { source: 'webhook-dispatcher', instanceId: 'plan-probe', leaseMs: 60_000 });
    try {
      for (let i = 0; i < 8; i++) {
        // Under a lease nobody holds: each statement runs in full and changes nothing.
        await store.record(outcomes('nobody'));
        await store.release(batch.map((id) => ({ id, lease_token: 'nobody' })));
        await store.claimDue(claimRequest);
        await db.query(RECORD_JOIN_ONLY, [outcomeRowsJson(outcomes('nobody')), 'plan-probe']);
      }
      await insert('grown', GROWTH, 'delivered');
      const explain = async (name: string, values: string[]) => {
        const [row] = await db.pool
          .query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(`explain (analyze, format json) execute ${name}(${values.join(', ')})`)
          .then((result) => result.rows);
        return planNodes(row['QUERY PLAN'][0].Plan);
      };
      const recordJoinOnly = await explain(RECORD_JOIN_ONLY.name, [
        escapeLiteral(outcomeRowsJson(outcomes('nobody'))),
        escapeLiteral('plan-probe'),
      ]);
      // The batch's leases given back, the batch claimed again, its outcomes written: each statement finds its rows.
      const release = await explain('delivery_release', [escapeLiteral(JSON.stringify(batch.map((id) => ({ id, lease_token: 'token' }))))]);
      const claim = await explain('delivery_claim_due', [
        String(SMALL),
        '1000000',
        escapeLiteral('[]'),
        escapeLiteral('{}'),
        String(SMALL),
        escapeLiteral('claim'),
        '60000',
      ]);
      const record = await explain('delivery_record', [escapeLiteral(outcomeRowsJson(outcomes('claim'))), escapeLiteral('plan-probe')]);
      return { release, claim, record, recordJoinOnly };
    } finally {
      await db.end();
    }
  }

  it(
    'planned as PostgreSQL sees fit, ' + 'the outcome statement of before reads the grown table whole (what the pool setting prevents)',
    async () => {
      expect(RECORD.text).toContain(IDS_AS_AN_ARRAY);
      const { recordJoinOnly } = await plansAfterGrowth(true);
      expect(readsOf(recordJoinOnly, 'delivery').map(([type]) => type)).toContain('Seq Scan');
    },
  );

  it('on a pool without sequential scans, every statement reads deliveries only by key or along an index, a batch at a time', async () => {
    const { record, release, claim } = await plansAfterGrowth(false);
    for (const [name, plan] of Object.entries({ record, release, claim })) {
      const readers = plan.filter((node) => node['Relation Name'] === 'delivery' && node['Node Type'] !== 'ModifyTable');
      expect({ name, sequential: readers.filter((node) => node['Node Type'] === 'Seq Scan').length }).toEqual({ name, sequential: 0 });
      expect(readers.length).toBeGreaterThan(0);
      for (const node of readers)
        expect({ name, rows: (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) <= SMALL }).toEqual({ name, rows: true });
    }
    // The outcomes were written: the batch's leases matched.
    const [{ count }] = await run(admin, `select count(*)::int as count from delivery_attempt`);
    expect(count).toBe(SMALL);
  });
});
