import { Topic } from '@workline/contracts';
import { createPlatformAccount, dbQuery, http, replayRpcRequest, whileDatabaseRefuses } from '@workline/testing';
import { randomUUID } from 'node:crypto';

interface RunView {
  id: string;
  line_id: string;
  status: string;
  units: { input: Record<string, unknown>; meta: { status: string } }[];
}

/**
 * Run creation writes the run and all its units in one statement, and runs created at the same moment share
 * it (group commit, docs/decisions.md): each run must still get exactly its own units, in order.
 */
describe('run creation in batches (v4 and v3, real PostgreSQL)', () => {
  it('runs created at once each hold exactly their units in order, small and large runs and v3 batches alike', async () => {
    const account = await createPlatformAccount('Batched runs');
    const tag = randomUUID().slice(0, 6);
    const v4 = Array.from({ length: 24 }, (_, i) => ({
      line_id: account.lineId,
      units: Array.from({ length: i + 1 }, (_, j) => ({ identifier: `${tag}-r${i}-u${j}`, j })),
    }));
    // Over the batched size: inserted on its own, beside the batches.
    const large = { line_id: account.lineId, units: Array.from({ length: 1_500 }, (_, j) => ({ identifier: `${tag}-large-u${j}` })) };
    const v3 = Array.from({ length: 4 }, (_, i) => ({
      template_id: account.lineId,
      resources: Array.from({ length: 3 }, (_, j) => ({ identifier: `${tag}-b${i}-u${j}` })),
    }));
    const [created, createdLarge, sent] = await Promise.all([
      Promise.all(v4.map((body) => http<{ id: string; status: string }>('POST', '/v4/runs', { headers: account.auth, body }))),
      http<{ id: string }>('POST', '/v4/runs', { headers: account.auth, body: large }),
      Promise.all(v3.map((body) => http<{ task_id: string; status: string }>('POST', '/v3/tasks', { headers: account.auth, body }))),
    ]);
    expect(created.map((r) => [r.status, r.body.status])).toEqual(Array(24).fill([201, 'Processing']));
    expect(createdLarge.status).toBe(201);
    expect(sent.map((r) => [r.status, r.body.status])).toEqual(Array(4).fill([200, 'In-Progress']));

    for (const [i, result] of created.entries()) {
      const run = await http<RunView>('GET', `/v4/runs/${result.body.id}`, { headers: account.auth });
      expect(run.body.units.map((unit) => unit.input)).toEqual(v4[i].units);
      expect(run.body.units.every((unit) => unit.meta.status === 'Processing')).toBe(true);
    }
    const largeRun = await http<RunView>('GET', `/v4/runs/${createdLarge.body.id}`, { headers: account.auth });
    expect(largeRun.body.units.map((unit) => unit.input)).toEqual(large.units);
    for (const [i, result] of sent.entries()) {
      const batch = await http<{ resources: Record<string, unknown>[] }>('GET', `/v3/tasks/${result.body.task_id}`, {
        headers: account.auth,
      });
      expect(batch.body.resources.map(({ extra: _extra, ...resource }) => resource)).toEqual(v3[i].resources);
    }
    const counters = await dbQuery<{ api: string; runs: number; units: number; pending: number }>(
      `select r.api, count(distinct r.id)::int as runs, count(u.seq)::int as units, sum(distinct r.pending_units)::int as pending
       from platform_run r join platform_unit u on u.run_id = r.id where r.line_id = $1 group by r.api order by r.api`,
      [account.lineId],
    );
    expect(counters.map(({ api, runs, units }) => ({ api, runs, units }))).toEqual([
      { api: 'v3', runs: 4, units: 12 },
      { api: 'v4', runs: 25, units: 300 + 1_500 },
    ]);
    const mismatched = await dbQuery(
      'select id from platform_run r where line_id = $1 and (unit_count <> pending_units or unit_count <> (select ' +
        'count(*) from platform_unit u where u.run_id = r.id))',
      [account.lineId],
    );
    expect(mismatched).toEqual([]);
  });

  it('a run the database refuses fails alone, leaving no run and no unit behind; the runs sent with it are created', async () => {
    const account = await createPlatformAccount('Refused run');
    const good = Array.from({ length: 10 }, (_, i) => ({ line_id: account.lineId, units: [{ identifier: `ok-${i}` }] }));
    // The body passes the gateway and the run checks; the database refuses its unit (a constraint the test
    // adds), in the statement it shares with the other runs.
    const refusedIdentifier = `refused-${randomUUID()}`;
    const bad = { line_id: account.lineId, units: [{ identifier: refusedIdentifier }] };
    const results = await whileDatabaseRefuses('platform_unit', `input->>'identifier' = '${refusedIdentifier}'`, () =>
      Promise.all(
        [...good.slice(0, 5), bad, ...good.slice(5)].map((body) =>
          http<{ id: string }>('POST', '/v4/runs', { headers: account.auth, body }),
        ),
      ),
    );
    expect(results.filter((_, i) => i !== 5).map((r) => r.status)).toEqual(Array(10).fill(201));
    expect(results[5].status).not.toBe(201);
    const rows = await dbQuery<{ identifier: string }>(
      "select u.input->>'identifier' as identifier from platform_run r join platform_unit u on u.run_id = r.id where " +
        'r.line_id = $1 order by 1',
      [account.lineId],
    );
    expect(rows.map((row) => row.identifier)).toEqual(good.map((body) => body.units[0].identifier).sort());
    expect(await dbQuery('select id from platform_run where line_id = $1', [account.lineId])).toHaveLength(10);
  });
  it(
    'creates a run once when its request is replayed without an Idempotency-Key ' + '(a crash before the offset was committed), v4 and v3',
    async () => {
      const account = await createPlatformAccount('Replayed runs');
      const sends = [
        { path: '/v4/runs', status: 201, body: { line_id: account.lineId, units: [{ identifier: 'once' }] } },
        { path: '/v3/tasks', status: 200, body: { template_id: account.lineId, resources: [{ identifier: 'once' }] } },
      ];
      for (const { path, status, body } of sends) {
        const since = Date.now();
        const requestId = `replayed-run-${randomUUID()}`;
        const created = await http('POST', path, { headers: { ...account.auth, 'x-request-id': requestId }, body });
        expect(created.status).toBe(status);
        const replies = await replayRpcRequest(Topic.PlatformRunsRpc, requestId, since);
        // The client asked once: the replay answers the same run, and not as an idempotent replay.
        expect(replies).toEqual([
          { ok: true, data: { view: created.body, replayed: false } },
          { ok: true, data: { view: created.body, replayed: false } },
        ]);
      }
      const runs = await dbQuery<{ api: string; runs: number; units: number }>(
        `select r.api, count(distinct r.id)::int as runs, count(u.seq)::int as units
       from platform_run r join platform_unit u on u.run_id = r.id where r.line_id = $1 group by r.api order by r.api`,
        [account.lineId],
      );
      expect(runs).toEqual([
        { api: 'v3', runs: 1, units: 1 },
        { api: 'v4', runs: 1, units: 1 },
      ]);
    },
  );
});
