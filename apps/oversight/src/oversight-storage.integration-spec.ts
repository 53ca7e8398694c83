import { BaseEnv } from '@workline/config';
import { Topic } from '@workline/contracts';
import { SecretBox } from '@workline/secrets';
import {
  adminCreate,
  completeTask,
  createOversightTenant,
  eventually,
  flagTask,
  http,
  leaseTask,
  newWorkerToken,
  nextTask,
  type OversightTenant,
  startS3Server,
  takesTurnOn,
  testStack,
  uploadImage,
} from '@workline/testing';
import { Pool } from 'pg';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * What the oversight service keeps where no API reaches: grants swept a day after their URL expired (aged
 * here rather than waited for), a lease that ran out (aged here too), the outbox written with a task's state
 * change, a bucket's secret sealed at rest. The checks read and age oversight's own tables; the API's
 * contract from outside is in e2e/oversight.
 */
describe("oversight's tables behind the API: grant sweep, lease expiry, outbox, sealed secrets (real stack)", () => {
  takesTurnOn('oversight task queue');
  const db = new Pool({ connectionString: testStack().databaseUrl, max: 2 });
  let tenant: OversightTenant;
  let worker: string;
  const createTask = (body: Record<string, unknown>) =>
    http<{ task_id: string; message?: string }>('POST', '/v1/tasks', { headers: { 'x-api-key': tenant.key }, body });
  const created = async (mediaKey: string) => {
    const result = await createTask({ media_key: mediaKey, configuration_id: tenant.configurationId });
    if (result.status !== 201) throw new Error(`POST /v1/tasks answered ${result.status}: ${result.text}`);
    return result.body.task_id;
  };
  const taskState = async (taskId: string) =>
    (await http<{ state: string }>('GET', `/v1/tasks/${taskId}`, { headers: { 'x-api-key': tenant.key } })).body.state;

  beforeAll(async () => {
    [tenant, worker] = await Promise.all([createOversightTenant('Oversight storage'), newWorkerToken()]);
  });

  afterAll(() => db.end());

  it('the sweep removes grants a day past their URL expiry, deleting their media unless a task uses it', async () => {
    const mediaFile = (mediaKey: string) => join(testStack().appEnv.BLOB_DIR, 'media', mediaKey);
    const expiredHoursAgo = (mediaKey: string, hours: number) =>
      db.query(`update oversight_media_grant set expires_at = now() - make_interval(hours => $2) where id = $1`, [mediaKey, hours]);
    const grantExists = async (mediaKey: string) =>
      (await db.query('select 1 from oversight_media_grant where id = $1', [mediaKey])).rowCount === 1;
    // Set up first: within MEDIA_KEY_RETENTION_SECONDS (a day) of its URL's expiry, so kept, and usable.
    const recent = await uploadImage(tenant);
    await expiredHoursAgo(recent, 23);
    const unused = await uploadImage(tenant);
    const used = await uploadImage(tenant);
    const task = await created(used);
    await expiredHoursAgo(unused, 25);
    await expiredHoursAgo(used, 25);

    await eventually(async () => (!(await grantExists(unused)) && !(await grantExists(used))) || undefined, {
      what: 'both old grants swept',
      timeoutMs: 30_000,
    });
    expect([existsSync(mediaFile(unused)), existsSync(mediaFile(used)), existsSync(mediaFile(recent))]).toEqual([false, true, true]);
    expect(await grantExists(recent)).toBe(true);
    const late = await createTask({ media_key: unused, configuration_id: tenant.configurationId });
    expect(late).toMatchObject({
      status: 404,
      body: {
        message: `media ${unused} not found: get a media_key from POST /v1/signed-url, or send bucket_id for media in a mounted bucket`,
      },
    });
    expect((await createTask({ media_key: recent, configuration_id: tenant.configurationId })).status).toBe(201);
    expect(await taskState(task)).toBe('QUEUED');
  });

  it("a task's events are written in the transaction of its state change: without callback_url, no delivery is requested", async () => {
    const taskId = await created(await uploadImage(tenant));
    const assignment = await leaseTask(worker, taskId);
    expect((await completeTask(worker, assignment.assignment_id, { updated_tags: [] })).status).toBe(200);
    const { rows } = await db.query<{ topic: string }>(`select topic from messaging_outbox where key = $1 order by seq`, [taskId]);
    expect(rows.map((row) => row.topic)).toEqual([Topic.TaskResultAvailable]);
  });

  it('a lease that ran out puts the task back: another worker gets it, and the first assignment is gone', async () => {
    const taskId = await created(await uploadImage(tenant));
    const first = await leaseTask(worker, taskId);
    expect(new Date(first.lease_expires_at).getTime()).toBeGreaterThan(Date.now() + 25 * 60_000);
    const idle = await nextTask(await newWorkerToken());
    expect(idle.status).toBe(204);
    await db.query(`update oversight_task set lease_expires_at = now() - interval '1 second' where id = $1`, [taskId]);
    const newer = await created(await uploadImage(tenant));
    const secondWorker = await newWorkerToken();
    const second = await leaseTask(secondWorker, taskId);
    expect(second.assignment_id).not.toBe(first.assignment_id);
    // Oldest first: the task whose lease ran out came before the newer queued one (leaseTask flags what it passes over).
    expect(await taskState(newer)).toBe('QUEUED');
    expect((await completeTask(worker, first.assignment_id, { updated_tags: [] })).status).toBe(404);
    expect((await completeTask(secondWorker, second.assignment_id, { updated_tags: [] })).status).toBe(200);
    expect(await taskState(taskId)).toBe('COMPLETED');
    const third = await newWorkerToken();
    const leftover = await leaseTask(third, newer);
    expect((await flagTask(third, leftover.assignment_id, 'only here to be newer')).status).toBe(200);
  });

  it("an s3 bucket's secret access key is stored only sealed with SECRETS_KEY", async () => {
    const secret = `s3-secret-${randomBytes(12).toString('hex')}`;
    const s3 = await startS3Server('client-photos', secret);
    try {
      const bucket = await adminCreate<{ id: string }>(`/workstreams/${tenant.workstreamId}/buckets`, {
        driver: 's3',
        endpoint: s3.settings.endpoint,
        region: 'us-east-1',
        bucket: 'client-photos',
        access_key_id: 'S3RVER',
        secret_access_key: secret,
        force_path_style: true,
      });
      const { rows } = await db.query<Record<string, unknown>>('SELECT * FROM oversight_bucket WHERE id = $1', [bucket.id]);
      expect(JSON.stringify(rows[0])).not.toContain(secret);
      const secretsKey = testStack().appEnv.SECRETS_KEY ?? new BaseEnv().secretsKey;
      expect(new SecretBox(secretsKey).open(rows[0].sealed_secret_access_key as string)).toBe(secret);
    } finally {
      await s3.close();
    }
  });
});
