import { Topic } from '@workline/contracts';
import {
  createOversightTenant,
  dbQuery,
  eventually,
  http,
  type OversightTenant,
  replayRpcRequest,
  solidPng,
  takesTurnOn,
  testStack,
} from '@workline/testing';
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';

async function uploadedMedia(tenant: OversightTenant, configurationId = tenant.configurationId): Promise<string> {
  const grant = await http<{ media_upload_url: string; media_key: string }>('POST', '/v1/signed-url', {
    headers: { 'x-api-key': tenant.key },
    body: { configuration_id: configurationId },
  });
  const upload = await fetch(grant.body.media_upload_url, {
    method: 'PUT',
    headers: { 'content-type': 'image/png' },
    body: solidPng(8, 8, [1, 2, 3]),
  });
  if (upload.status !== 200) throw new Error(`media upload answered ${upload.status}`);
  return grant.body.media_key;
}

/**
 * Task creations that arrive together are checked one by one and inserted by one statement (group commit,
 * docs/decisions.md): each request still gets its own answer, and an Idempotency-Key still makes one task.
 */
describe('task creation in batches (real PostgreSQL)', () => {
  // Its tasks must stay QUEUED while it reads them: the files whose workers drain the queue wait their turn.
  takesTurnOn('oversight task queue');
  it('concurrent creations each get their own answer: created, replayed by key, media unknown or granted elsewhere', async () => {
    const tenant = await createOversightTenant(`Batched tasks ${randomUUID().slice(0, 6)}`);
    const other = await createOversightTenant(`Other tasks ${randomUUID().slice(0, 6)}`);
    const media = await Promise.all(Array.from({ length: 12 }, () => uploadedMedia(tenant)));
    const foreign = await uploadedMedia(other);
    const key = `batch-${randomUUID()}`;
    const create = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      http<{ task_id?: string; message?: string }>('POST', '/v1/tasks', {
        headers: { 'x-api-key': tenant.key, ...headers },
        body: { configuration_id: tenant.configurationId, ...body },
      });
    const requests = [
      ...media.map((mediaKey) => () => create({ media_key: mediaKey, existing_tags: [{ value: mediaKey, confidence_score: 0.5 }] })),
      ...Array.from({ length: 4 }, () => () => create({ media_key: media[0] }, { 'idempotency-key': key })),
      () => create({ media_key: foreign }),
      () => create({ media_key: 'med_unknown0000000000000000000000' }),
    ];
    const results = await Promise.all(requests.map((send) => send()));
    const plain = results.slice(0, 12);
    expect(plain.map((r) => r.status)).toEqual(Array(12).fill(201));
    const keyed = results.slice(12, 16);
    expect(keyed.map((r) => r.status)).toEqual([201, 201, 201, 201]);
    expect(new Set(keyed.map((r) => r.body.task_id)).size).toBe(1);
    expect(keyed.filter((r) => r.headers.get('idempotent-replayed') === null)).toHaveLength(1);
    expect(results[16].status).toBe(404);
    expect(results[16].body.message).toBe(
      `media ${foreign} not found: get a media_key from POST /v1/signed-url, or send bucket_id for media in a mounted bucket`,
    );
    expect(results[17].status).toBe(404);

    const rows = await dbQuery<{ id: string; media_key: string; existing_tags: { value: string }[]; state: string }>(
      'select id, media_key, existing_tags, state from oversight_task where workstream_id = $1',
      [tenant.workstreamId],
    );
    expect(rows).toHaveLength(13);
    for (const [i, result] of plain.entries()) {
      expect(rows.find((row) => row.id === result.body.task_id)).toEqual({
        id: result.body.task_id,
        media_key: media[i],
        existing_tags: [{ value: media[i], confidence_score: 0.5 }],
        state: 'QUEUED',
      });
    }
    const status = await http<{ state: string; media_key: string }>('GET', `/v1/tasks/${keyed[0].body.task_id}`, {
      headers: { 'x-api-key': tenant.key },
    });
    expect(status.body).toMatchObject({ state: 'QUEUED', media_key: media[0] });
  });

  it('the task insert holds its upload grant: a grant the sweep removes first leaves no task and answers 404', async () => {
    const tenant = await createOversightTenant(`Swept grant ${randomUUID().slice(0, 6)}`);
    const mediaKey = await uploadedMedia(tenant);
    // Plays the grant sweep: it locks the grant FOR UPDATE, then deletes it.
    const sweep = new Client({ connectionString: testStack().databaseUrl });
    await sweep.connect();
    try {
      await sweep.query('begin');
      await sweep.query('select id from oversight_media_grant where id = $1 for update', [mediaKey]);
      const answer = http<{ message: string }>('POST', '/v1/tasks', {
        headers: { 'x-api-key': tenant.key },
        body: { media_key: mediaKey, configuration_id: tenant.configurationId },
      });
      // Watched from another connection: a transaction sees one snapshot of pg_stat_activity.
      await eventually(
        async () =>
          (
            await dbQuery(
              "select pid from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock' and query " +
                "like '%insert into oversight_task%'",
            )
          ).length === 1,
        { what: 'the task insert to wait for the grant', timeoutMs: 30_000 },
      );
      await sweep.query('delete from oversight_media_grant where id = $1', [mediaKey]);
      await sweep.query('commit');
      const result = await answer;
      expect([result.status, result.body.message]).toEqual([
        404,
        `media ${mediaKey} not found: get a media_key from POST /v1/signed-url, or send bucket_id for media in a mounted bucket`,
      ]);
      expect(await dbQuery('select id from oversight_task where media_key = $1', [mediaKey])).toEqual([]);
    } finally {
      await sweep.end();
    }
  });
  it('creates a task once when its request is replayed without an Idempotency-Key (a crash before the offset was committed)', async () => {
    const tenant = await createOversightTenant(`Replayed task ${randomUUID().slice(0, 6)}`);
    const mediaKey = await uploadedMedia(tenant);
    const since = Date.now();
    const requestId = `replayed-task-${randomUUID()}`;
    const created = await http<{ task_id: string }>('POST', '/v1/tasks', {
      headers: { 'x-api-key': tenant.key, 'x-request-id': requestId },
      body: { configuration_id: tenant.configurationId, media_key: mediaKey },
    });
    expect(created.status).toBe(201);
    const replies = await replayRpcRequest(Topic.OversightRpc, requestId, since);
    // The client asked once: the replay answers the same task, and not as an idempotent replay.
    const answer = { ok: true, data: { task_id: created.body.task_id, replayed: false } };
    expect(replies).toEqual([answer, answer]);
    expect(await dbQuery('select id from oversight_task where workstream_id = $1', [tenant.workstreamId])).toEqual([
      { id: created.body.task_id },
    ]);
  });
});
