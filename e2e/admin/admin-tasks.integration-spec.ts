import type { QueryOf } from '@workline/client';
import {
  adminClient,
  adminHeaders,
  apiClient,
  createImageTask,
  createOversightTenant,
  http,
  ok,
  type OversightTenant,
  postRecord,
  takesTurnOn,
  withStatus,
} from '@workline/testing';

type TaskQuery = QueryOf<'getAdminV1Tasks'>;
type ReportQuery = QueryOf<'getAdminV1WorkstreamsWorkstreamIdReportsThroughput'>;

/** GET /admin/v1/tasks and the admin reports (docs/admin-api.md), over the real stack. */
describe('admin API: tasks of every account, and workstream reports', () => {
  // Its tasks must stay QUEUED while it lists them: the files whose workers drain the queue wait their turn.
  takesTurnOn('oversight task queue');
  let tenant: OversightTenant;
  let other: OversightTenant;
  const tasks: string[] = [];
  const admin = adminClient();
  const list = (query: TaskQuery) => withStatus(admin.GET('/admin/v1/tasks', { params: { query } }));
  const page = async (query: TaskQuery) => ok(list(query), 200);

  beforeAll(async () => {
    tenant = await createOversightTenant('Admin tasks');
    other = await createOversightTenant('Admin tasks, other');
    for (let i = 0; i < 3; i++) tasks.push((await createImageTask(tenant)).taskId);
    await createImageTask(other);
  });

  it("lists a workstream's tasks newest first, a page at a time, with who they belong to", async () => {
    const first = await page({ workstream_id: tenant.workstreamId, limit: 2 });
    expect(first.tasks.map((t) => t.task_id)).toEqual([tasks[2], tasks[1]]);
    expect(first.tasks[0]).toMatchObject({
      state: 'QUEUED',
      workstream_id: tenant.workstreamId,
      account_id: tenant.accountId,
      configuration_id: tenant.configurationId,
      media_key: expect.stringMatching(/^med_/),
    });
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await page({ workstream_id: tenant.workstreamId, limit: 2, cursor: first.next_cursor! });
    expect(second).toEqual({ tasks: [expect.objectContaining({ task_id: tasks[0] })], next_cursor: null });
  });

  it("filters by state, and lists every account's tasks without a workstream", async () => {
    expect(await page({ workstream_id: tenant.workstreamId, state: 'COMPLETED' })).toEqual({ tasks: [], next_cursor: null });
    expect((await page({ workstream_id: tenant.workstreamId, state: 'QUEUED' })).tasks).toHaveLength(3);
    const all = await page({ limit: 100 });
    const workstreams = new Set(all.tasks.map((t) => t.workstream_id));
    expect(workstreams.has(tenant.workstreamId) && workstreams.has(other.workstreamId)).toBe(true);
    const times = all.tasks.map((t) => t.created_at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('refuses a bad state, limit or cursor (422), and a missing admin token (401)', async () => {
    expect(await list({ limit: 101 })).toMatchObject({ status: 422, error: { errors: [{ field: 'limit' }] } });
    expect(await list({ limit: 0 })).toMatchObject({ status: 422, error: { errors: [{ field: 'limit' }] } });
    expect(await list({ cursor: 'nonsense' })).toMatchObject({
      status: 422,
      error: { errors: [{ field: 'cursor', message: 'cursor is not a cursor this API returned' }] },
    });
    // A state outside the documented enum and an unknown parameter: raw http(), which the typed client would not send.
    const listRaw = (query: string) => http('GET', `/admin/v1/tasks${query}`, { headers: adminHeaders() });
    expect(await listRaw('?state=DONE')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'state', message: 'state must be one of: QUEUED, IN_PROGRESS, COMPLETED, ERROR' }] },
    });
    expect(await listRaw('?colour=red')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'colour', message: 'property colour should not exist' }] },
    });
    expect((await apiClient().GET('/admin/v1/tasks')).response.status).toBe(401);
  });

  it("answers a workstream's reports as its API key gets them, JSON or CSV; 404 for an unknown workstream", async () => {
    const record = { worker_id: 'ann@example.com', task_completed_at: '2026-04-02T10:00:00Z', task_count: 2 };
    expect((await postRecord('task_completed', tenant.workstreamId, record, tenant.key)).status).toBe(202);
    const query: ReportQuery = { from: '2026-04-01', to: '2026-04-03', group_by: 'day' };
    const params = (q: ReportQuery = query, workstream_id = tenant.workstreamId) => ({ params: { path: { workstream_id }, query: q } });
    const byKey = await apiClient({ apiKey: tenant.key }).GET('/v1/workstreams/{workstream_id}/reports/throughput', params());
    const byAdmin = await admin.GET('/admin/v1/workstreams/{workstream_id}/reports/throughput', params());
    expect(byAdmin.response.status).toBe(200);
    expect(byAdmin.data).toEqual(byKey.data);
    expect(byAdmin.data).toMatchObject({ kind: 'throughput', groups: [{ key: '2026-04-02', records: 1, tasks: 2 }] });
    const quality = await withStatus(admin.GET('/admin/v1/workstreams/{workstream_id}/reports/quality', params()));
    expect(quality).toMatchObject({ status: 200, data: { kind: 'quality', groups: [] } });
    const csv = await admin.GET('/admin/v1/workstreams/{workstream_id}/reports/throughput', {
      ...params({ ...query, format: 'csv' }),
      parseAs: 'text',
    });
    expect(csv.response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const csvByKey = await apiClient({ apiKey: tenant.key }).GET('/v1/workstreams/{workstream_id}/reports/throughput', {
      ...params({ ...query, format: 'csv' }),
      parseAs: 'text',
    });
    expect(csv.data).toBe(csvByKey.data);
    expect(csv.data).toMatch(/^day,records,tasks,.*\r\n2026-04-02,1,2,/);
    expect(await withStatus(admin.GET('/admin/v1/workstreams/{workstream_id}/reports/quality', params({}, 'nope')))).toMatchObject({
      status: 404,
      error: { message: 'workstream nope not found' },
    });
    const backwards = params({ from: '2026-04-03', to: '2026-04-01' });
    expect((await admin.GET('/admin/v1/workstreams/{workstream_id}/reports/quality', backwards)).response.status).toBe(422);
    const withKey = apiClient({ apiKey: tenant.key });
    expect((await withKey.GET('/admin/v1/workstreams/{workstream_id}/reports/quality', params({}))).response.status).toBe(401);
  });
});
