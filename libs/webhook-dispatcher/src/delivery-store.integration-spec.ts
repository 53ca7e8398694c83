import { DbPool, statement } from '@workline/db';
import { callsOnly, testStack } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { CLAIM_DUE, DeliveryStore } from './delivery-store';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

const SLOW = 'https://slow.example';

/**
 * The dispatcher's claim against the real PostgreSQL of the test stack, on a delivery table of its own (a
 * schema with a copy of the table and its indexes), so the test stack's dispatcher never sees these rows.
 */
describe('DeliveryStore.claimDue (real PostgreSQL)', () => {
  const schema = `claim_probe_${randomBytes(4).toString('hex')}`;
  const url = new URL(testStack().databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  const admin = new DbPool(testStack().databaseUrl, { size: 1 });
  const db = new DbPool(url.toString(), { size: 4 });
  const store = new DeliveryStore(db, { source: 'webhook-dispatcher', instanceId: 'claim-probe', leaseMs: 60_000 });
  let runs = 0;
  const run = (pool: DbPool, sql: string, values: unknown[] = []) => pool.query(statement(`${schema}_${++runs}`, sql), values);

  /** Pending rows of `origin`, due `agoMs` ago and each a millisecond later than the one before, `bytes` of body each. */
  const due = (origin: string, count: number, agoMs: number, bytes = 10, prefix = origin.slice(8, 12)) =>
    run(
      db,
      `insert into delivery (id, account_id, event_type, url, body, signing, status, next_attempt_at)
       select $1 || '-' || g, 'acc', 'task.completed', $2 || '/hook', repeat('x', $5), 'v1', 'pending',
         now() - $3 * interval '1 millisecond' + g * interval '1 millisecond'
       from generate_series(1, $4) g`,
      [prefix, origin, agoMs, count, bytes],
    );
  const claim = (request: Partial<Parameters<DeliveryStore['claimDue']>[0]> = {}) =>
    store.claimDue({
      limit: 100,
      maxBytes: 1_000_000_000,
      fullOrigins: [],
      originRooms: {},
      defaultRoom: 4,
      token: `token-${randomBytes(4).toString('hex')}`,
      ...request,
    });
  const ids = (rows: { id: string }[]) => rows.map((row) => row.id).sort();

  beforeAll(async () => {
    await run(admin, `create schema ${schema}`);
    await run(admin, `create table ${schema}.delivery (like public.delivery including all)`);
  });

  afterAll(async () => {
    await run(admin, `drop schema ${schema} cascade`);
    await db.end();
    await admin.end();
  });

  beforeEach(() => run(db, 'delete from delivery'));

  it("takes the other origins' due rows past a saturated origin's backlog, at most each origin's room, oldest first", async () => {
    await due(SLOW, 5_000, 3_600_000);
    await due('https://a.example', 5, 60_000);
    await due('https://b.example', 5, 50_000);
    const claimed = await claim({ fullOrigins: [SLOW], originRooms: { 'https://a.example': 2 } });
    expect(ids(claimed)).toEqual(['a.ex-1', 'a.ex-2', 'b.ex-1', 'b.ex-2', 'b.ex-3', 'b.ex-4']);
    expect(new Set(claimed.map((row) => row.lease_token)).size).toBe(1);
    // Without the cap, the backlog's oldest rows come first, at most its room.
    expect(ids(await claim())).toEqual(['slow-1', 'slow-2', 'slow-3', 'slow-4', 'a.ex-3', 'a.ex-4', 'a.ex-5', 'b.ex-5'].sort());
  });

  it('claims the oldest due rows across origins up to the limit, and within the byte budget (the first row always)', async () => {
    await due('https://a.example', 3, 30_000);
    await due('https://b.example', 3, 60_000);
    await due('https://c.example', 3, 5_000, 10, 'later');
    await run(db, `update delivery set next_attempt_at = now() + interval '1 hour' where id like 'later-%'`);
    expect(ids(await claim({ limit: 4 }))).toEqual(['a.ex-1', 'b.ex-1', 'b.ex-2', 'b.ex-3']);
    await run(db, `update delivery set lease_until = null, lease_token = null`);
    await run(db, `update delivery set body = repeat('x', 1000)`);
    expect(ids(await claim({ maxBytes: 2_500 }))).toEqual(['b.ex-1', 'b.ex-2']);
    expect(ids(await claim({ maxBytes: 10 }))).toEqual(['b.ex-3']);
  });

  it('never hands one row to two claims at once, and skips rows whose lease is live until it ends', async () => {
    await due('https://a.example', 6, 60_000);
    await due('https://b.example', 6, 60_000);
    const [first, second] = await Promise.all([claim({ defaultRoom: 6 }), claim({ defaultRoom: 6 })]);
    expect([...ids(first), ...ids(second)].sort()).toEqual(
      [...Array.from({ length: 6 }, (_, n) => `a.ex-${n + 1}`), ...Array.from({ length: 6 }, (_, n) => `b.ex-${n + 1}`)].sort(),
    );
    expect(await claim({ defaultRoom: 6 })).toEqual([]);
    await run(db, `update delivery set lease_until = now() - interval '1 second' where id = 'a.ex-3'`);
    expect(ids(await claim({ defaultRoom: 6 }))).toEqual(['a.ex-3']);
  });

  it("reads none of a saturated origin's backlog to find the other origins' rows", async () => {
    await due(SLOW, 20_000, 3_600_000);
    await due('https://a.example', 2, 60_000);
    await run(db, 'analyze delivery');
    // The claim itself, explained with the rows it reads, then rolled back (its locks and leases with it).
    const client = await db.pool.connect();
    let plan: unknown;
    try {
      await client.query('begin');
      const values = [100, 1_000_000_000, JSON.stringify([SLOW]), '{}', 4, 'explained', 60_000];
      plan = (await client.query<{ 'QUERY PLAN': unknown }>(`explain (analyze, format json) ${CLAIM_DUE.text}`, values)).rows[0][
        'QUERY PLAN'
      ];
    } finally {
      await client.query('rollback');
      client.release();
    }
    const nodes: Record<string, unknown>[] = [];
    const walk = (node: Record<string, unknown>) => {
      nodes.push(node);
      for (const child of (node.Plans as Record<string, unknown>[] | undefined) ?? []) walk(child);
    };
    walk((plan as { Plan: Record<string, unknown> }[])[0].Plan);
    const read = nodes
      .filter((node) => String(node['Node Type']).includes('Scan') && node['Relation Name'] === 'delivery')
      .reduce(
        (sum, node) => sum + Number(node['Actual Rows']) * Number(node['Actual Loops']) + Number(node['Rows Removed by Filter'] ?? 0),
        0,
      );
    // A scan in due order across origins read all 20,000 rows of the backlog before the two it could take.
    expect(read).toBeLessThan(50);
    expect(nodes.some((node) => node['Node Type'] === 'Seq Scan' && node['Relation Name'] === 'delivery')).toBe(false);
    expect(ids(await claim({ fullOrigins: [SLOW] }))).toEqual(['a.ex-1', 'a.ex-2']);
  });
});
