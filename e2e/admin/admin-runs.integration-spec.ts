import type { QueryOf } from '@workline/client';
import {
  adminClient,
  adminHeaders,
  apiClient,
  callsOnly,
  completeUnit,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  newRun,
  nextUnit,
  ok,
  platformClient,
  type PlatformAccount,
  withStatus,
} from '@workline/testing';

type RunQuery = QueryOf<'getAdminV1Runs'>;

// It calls the gateway and the platform-runs service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'platform-runs']);

const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/** GET /admin/v1/runs (docs/admin-api.md), over the real stack. */
describe('admin API: production runs of every account', () => {
  let account: PlatformAccount;
  let other: PlatformAccount;
  /** account's runs, oldest first: v4, v3, v4 (aborted), v4 (worked to the end). */
  const runs: string[] = [];
  const admin = adminClient();
  const list = (query: RunQuery) => withStatus(admin.GET('/admin/v1/runs', { params: { query } }));
  const runsOf = async (query: RunQuery) => (await ok(list(query), 200)).runs;

  beforeAll(async () => {
    [account, other] = await Promise.all([createPlatformAccount('Admin runs'), createPlatformAccount('Admin runs, other')]);
    runs.push(await newRun(account, [{ n: 1 }, { n: 2 }]));
    const platform = platformClient(account);
    const v3 = await platform.POST('/v3/tasks', { body: { template_id: account.lineId, resources: [{ n: 3 }] } });
    runs.push(v3.data!.task_id);
    runs.push(await newRun(account, [{ n: 4 }]));
    expect((await platform.POST('/v4/runs/{id}/abort', { params: { path: { id: runs[2] } } })).response.status).toBe(202);
    await newRun(other, [{ n: 5 }]);
  });

  it("lists an account's runs newest first, a page at a time, with what support asks first", async () => {
    const first = await list({ account_id: account.id, limit: 2 });
    expect(first.status).toBe(200);
    const page = first.data!;
    expect(page.runs.map((run) => run.id)).toEqual([runs[2], runs[1]]);
    expect(page.runs[0]).toEqual({
      id: runs[2],
      account_id: account.id,
      line_id: account.lineId,
      api: 'v4',
      status: expect.stringMatching(/^Process(ing|ed)$/),
      unit_count: 1,
      pending_units: expect.any(Number),
      abort_requested: true,
      created_at: expect.stringMatching(ISO_MS),
      processed_at: page.runs[0].processed_at === null ? null : expect.stringMatching(ISO_MS),
    });
    expect(page.runs[1]).toMatchObject({ api: 'v3', status: 'Processing', unit_count: 1, pending_units: 1, abort_requested: false });
    const second = await ok(list({ account_id: account.id, limit: 2, cursor: page.next_cursor! }), 200);
    expect(second.runs.map((run) => run.id)).toEqual([runs[0]]);
    expect(second.next_cursor).toBeNull();
    // The other account's run is not among them, and is listed with its own account.
    expect(await runsOf({ account_id: other.id })).toEqual([expect.objectContaining({ account_id: other.id, line_id: other.lineId })]);
    expect((await runsOf({ line_id: account.lineId, limit: 100 })).map((run) => run.id)).toEqual([...runs].reverse());
  });

  it('filters by status: a run whose units are all done is Processed, with processed_at', async () => {
    const worker = await createWorker();
    const done = await newRun(account, [{ n: 6 }]);
    runs.push(done);
    // Every unit of the line that is still open (the v4 and v3 runs above, and this one) is completed.
    for (let unit = await nextUnit(worker, account.lineId); unit; unit = await nextUnit(worker, account.lineId))
      expect((await completeUnit(worker, unit.assignment_id, { output: { ok: true } })).status).toBe(200);
    // The aborted run ends as its abort is applied (asynchronously, from platform-runs' outbox).
    const processed = await eventually(
      async () => {
        const processedRuns = await runsOf({ account_id: account.id, status: 'Processed', limit: 100 });
        return processedRuns.length === runs.length ? processedRuns : undefined;
      },
      { what: 'every run of the account Processed' },
    );
    expect(processed.map((run) => run.id)).toEqual([...runs].reverse());
    expect(processed[0]).toMatchObject({ id: done, status: 'Processed', pending_units: 0, processed_at: expect.stringMatching(ISO_MS) });
    expect(await runsOf({ account_id: account.id, status: 'Processing' })).toEqual([]);
  });

  it('refuses a bad status, limit or cursor, or an unknown parameter (422), and a missing admin token (401)', async () => {
    expect(await list({ limit: 101 })).toMatchObject({ status: 422, error: { errors: [{ field: 'limit' }] } });
    expect(await list({ limit: 0 })).toMatchObject({ status: 422, error: { errors: [{ field: 'limit' }] } });
    expect(await list({ cursor: 'not-a-cursor' })).toMatchObject({
      status: 422,
      error: { errors: [{ field: 'cursor', message: 'cursor is not a cursor this API returned' }] },
    });
    // A status outside the documented enum and an unknown parameter: raw http(), which the typed client would not send.
    const listRaw = (query: string) => http('GET', `/admin/v1/runs${query}`, { headers: adminHeaders() });
    expect(await listRaw('?status=Done')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'status', message: 'status must be one of: Processing, Processed' }] },
    });
    expect(await listRaw('?account=x')).toMatchObject({
      status: 422,
      body: { message: expect.stringContaining('property account should not exist') },
    });
    expect((await apiClient().GET('/admin/v1/runs')).response.status).toBe(401);
  });
});
