import type { RunPage } from '@workline/contracts';
import {
  adminHeaders,
  callsOnly,
  completeUnit,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  nextUnit,
  type PlatformAccount,
} from '@workline/testing';

// It calls the gateway and the platform-runs service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'platform-runs']);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** GET /admin/v1/runs (docs/admin-api.md), over the real stack. */
describe('admin API: production runs of every account', () => {
  let account: PlatformAccount;
  let other: PlatformAccount;
  /** account's runs, oldest first: v4, v3, v4 (aborted), v4 (worked to the end). */
  const runs: string[] = [];
  const list = (query: string) =>
    http<RunPage & { message?: string; errors?: unknown[] }>('GET', `/admin/v1/runs${query}`, { headers: adminHeaders() });
  const createV4 = async (owner: PlatformAccount, units: unknown[]) => {
    const created = await http<{ id: string }>('POST', '/v4/runs', { headers: owner.auth, body: { line_id: owner.lineId, units } });
    if (created.status !== 201) throw new Error(`POST /v4/runs answered ${created.status}: ${created.text}`);
    return created.body.id;
  };

  beforeAll(async () => {
    [account, other] = await Promise.all([createPlatformAccount('Admin runs'), createPlatformAccount('Admin runs, other')]);
    runs.push(await createV4(account, [{ n: 1 }, { n: 2 }]));
    const v3 = await http<{ task_id: string }>('POST', '/v3/tasks', {
      headers: account.auth,
      body: { template_id: account.lineId, resources: [{ n: 3 }] },
    });
    runs.push(v3.body.task_id);
    runs.push(await createV4(account, [{ n: 4 }]));
    expect((await http('POST', `/v4/runs/${runs[2]}/abort`, { headers: account.auth })).status).toBe(202);
    await createV4(other, [{ n: 5 }]);
  });

  it("lists an account's runs newest first, a page at a time, with what support asks first", async () => {
    const first = await list(`?account_id=${account.id}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.runs.map((run) => run.id)).toEqual([runs[2], runs[1]]);
    expect(first.body.runs[0]).toEqual({
      id: runs[2],
      account_id: account.id,
      line_id: account.lineId,
      api: 'v4',
      status: expect.stringMatching(/^Process(ing|ed)$/),
      unit_count: 1,
      pending_units: expect.any(Number),
      abort_requested: true,
      created_at: expect.stringMatching(ISO_MS),
      processed_at: first.body.runs[0].processed_at === null ? null : expect.stringMatching(ISO_MS),
    });
    expect(first.body.runs[1]).toMatchObject({ api: 'v3', status: 'Processing', unit_count: 1, pending_units: 1, abort_requested: false });
    const second = await list(`?account_id=${account.id}&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.runs.map((run) => run.id)).toEqual([runs[0]]);
    expect(second.body.next_cursor).toBeNull();
    // The other account's run is not among them, and is listed with its own account.
    expect((await list(`?account_id=${other.id}`)).body.runs).toEqual([
      expect.objectContaining({ account_id: other.id, line_id: other.lineId }),
    ]);
    expect((await list(`?line_id=${account.lineId}&limit=100`)).body.runs.map((run) => run.id)).toEqual([...runs].reverse());
  });

  it('filters by status: a run whose units are all done is Processed, with processed_at', async () => {
    const worker = await createWorker();
    const done = await createV4(account, [{ n: 6 }]);
    runs.push(done);
    // Every unit of the line that is still open (the v4 and v3 runs above, and this one) is completed.
    for (let unit = await nextUnit(worker, account.lineId); unit; unit = await nextUnit(worker, account.lineId))
      expect((await completeUnit(worker, unit.assignment_id, { output: { ok: true } })).status).toBe(200);
    // The aborted run ends as its abort is applied (asynchronously, from platform-runs' outbox).
    const processed = await eventually(
      async () => {
        const page = await list(`?account_id=${account.id}&status=Processed&limit=100`);
        return page.body.runs.length === runs.length ? page.body.runs : undefined;
      },
      { what: 'every run of the account Processed' },
    );
    expect(processed.map((run) => run.id)).toEqual([...runs].reverse());
    expect(processed[0]).toMatchObject({ id: done, status: 'Processed', pending_units: 0, processed_at: expect.stringMatching(ISO_MS) });
    expect((await list(`?account_id=${account.id}&status=Processing`)).body.runs).toEqual([]);
  });

  it('refuses a bad status, limit or cursor, or an unknown parameter (422), and a missing admin token (401)', async () => {
    expect(await list('?status=Done')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'status', message: 'status must be one of: Processing, Processed' }] },
    });
    expect(await list('?limit=101')).toMatchObject({ status: 422, body: { errors: [{ field: 'limit' }] } });
    expect(await list('?limit=0')).toMatchObject({ status: 422, body: { errors: [{ field: 'limit' }] } });
    expect(await list('?cursor=not-a-cursor')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'cursor', message: 'cursor is not a cursor this API returned' }] },
    });
    expect(await list('?account=x')).toMatchObject({
      status: 422,
      body: { message: expect.stringContaining('property account should not exist') },
    });
    expect((await http('GET', '/admin/v1/runs')).status).toBe(401);
  });
});
