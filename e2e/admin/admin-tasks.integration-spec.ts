import { adminHeaders, createImageTask, createOversightTenant, http, type OversightTenant, takesTurnOn } from '@workline/testing';

interface TaskPage {
  tasks: {
    task_id: string;
    state: string;
    workstream_id: string;
    account_id: string;
    media_key: string;
    configuration_id: string;
    created_at: string;
    updated_at: string;
  }[];
  next_cursor: string | null;
}

/** GET /admin/v1/tasks and the admin reports (docs/admin-api.md), over the real stack. */
describe('admin API: tasks of every account, and workstream reports', () => {
  // Its tasks must stay QUEUED while it lists them: the files whose workers drain the queue wait their turn.
  takesTurnOn('oversight task queue');
  let tenant: OversightTenant;
  let other: OversightTenant;
  const tasks: string[] = [];
  const list = (query: string) =>
    http<TaskPage & { message?: string; errors?: unknown[] }>('GET', `/admin/v1/tasks${query}`, { headers: adminHeaders() });

  beforeAll(async () => {
    tenant = await createOversightTenant('Admin tasks');
    other = await createOversightTenant('Admin tasks, other');
    for (let i = 0; i < 3; i++) tasks.push((await createImageTask(tenant)).taskId);
    await createImageTask(other);
  });

  it("lists a workstream's tasks newest first, a page at a time, with who they belong to", async () => {
    const first = await list(`?workstream_id=${tenant.workstreamId}&limit=2`);
    expect(first.status).toBe(200);
    expect(first.body.tasks.map((t) => t.task_id)).toEqual([tasks[2], tasks[1]]);
    expect(first.body.tasks[0]).toMatchObject({
      state: 'QUEUED',
      workstream_id: tenant.workstreamId,
      account_id: tenant.accountId,
      configuration_id: tenant.configurationId,
      media_key: expect.stringMatching(/^med_/),
    });
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await list(`?workstream_id=${tenant.workstreamId}&limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body).toEqual({ tasks: [expect.objectContaining({ task_id: tasks[0] })], next_cursor: null });
  });

  it("filters by state, and lists every account's tasks without a workstream", async () => {
    expect((await list(`?workstream_id=${tenant.workstreamId}&state=COMPLETED`)).body).toEqual({ tasks: [], next_cursor: null });
    expect((await list(`?workstream_id=${tenant.workstreamId}&state=QUEUED`)).body.tasks).toHaveLength(3);
    const all = await list('?limit=100');
    const workstreams = new Set(all.body.tasks.map((t) => t.workstream_id));
    expect(workstreams.has(tenant.workstreamId) && workstreams.has(other.workstreamId)).toBe(true);
    const times = all.body.tasks.map((t) => t.created_at);
    expect(times).toEqual([...times].sort().reverse());
  });

  it('refuses a bad state, limit or cursor (422), and a missing admin token (401)', async () => {
    expect(await list('?state=DONE')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'state', message: 'state must be one of: QUEUED, IN_PROGRESS, COMPLETED, ERROR' }] },
    });
    expect(await list('?limit=101')).toMatchObject({ status: 422, body: { errors: [{ field: 'limit' }] } });
    expect(await list('?limit=0')).toMatchObject({ status: 422, body: { errors: [{ field: 'limit' }] } });
    expect(await list('?cursor=nonsense')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'cursor', message: 'cursor is not a cursor this API returned' }] },
    });
    expect(await list('?colour=red')).toMatchObject({
      status: 422,
      body: { errors: [{ field: 'colour', message: 'property colour should not exist' }] },
    });
    expect((await http('GET', '/admin/v1/tasks')).status).toBe(401);
  });

  it("answers a workstream's reports as its API key gets them, JSON or CSV; 404 for an unknown workstream", async () => {
    const record = { worker_id: 'ann@example.com', task_completed_at: '2026-04-02T10:00:00Z', task_count: 2 };
    expect(
      (await http('POST', `/v1/workstreams/${tenant.workstreamId}/task_completed`, { headers: { 'x-api-key': tenant.key }, body: record }))
        .status,
    ).toBe(202);
    const query = '?from=2026-04-01&to=2026-04-03&group_by=day';
    const byKey = await http('GET', `/v1/workstreams/${tenant.workstreamId}/reports/throughput${query}`, {
      headers: { 'x-api-key': tenant.key },
    });
    const byAdmin = await http('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/throughput${query}`, {
      headers: adminHeaders(),
    });
    expect(byAdmin.status).toBe(200);
    expect(byAdmin.body).toEqual(byKey.body);
    expect(byAdmin.body).toMatchObject({ kind: 'throughput', groups: [{ key: '2026-04-02', records: 1, tasks: 2 }] });
    const quality = await http('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/quality${query}`, { headers: adminHeaders() });
    expect(quality).toMatchObject({ status: 200, body: { kind: 'quality', groups: [] } });
    const csv = await http('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/throughput${query}&format=csv`, {
      headers: adminHeaders(),
    });
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const csvByKey = await http('GET', `/v1/workstreams/${tenant.workstreamId}/reports/throughput${query}&format=csv`, {
      headers: { 'x-api-key': tenant.key },
    });
    expect(csv.text).toBe(csvByKey.text);
    expect(csv.text).toMatch(/^day,records,tasks,.*\r\n2026-04-02,1,2,/);
    expect(await http('GET', `/admin/v1/workstreams/nope/reports/quality`, { headers: adminHeaders() })).toMatchObject({
      status: 404,
      body: { message: 'workstream nope not found' },
    });
    expect(
      (
        await http('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/quality?from=2026-04-03&to=2026-04-01`, {
          headers: adminHeaders(),
        })
      ).status,
    ).toBe(422);
    expect(
      (await http('GET', `/admin/v1/workstreams/${tenant.workstreamId}/reports/quality`, { headers: { 'x-api-key': tenant.key } })).status,
    ).toBe(401);
  });
});
