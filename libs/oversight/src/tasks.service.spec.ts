import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { ErrorCode, type TaskCreateRequest } from '@workline/contracts';
import { SecretBox } from '@workline/secrets';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { BucketsService } from './buckets.service';
import { ConfigurationsService } from './configurations.service';
import {
  domainError,
  InMemoryBuckets,
  InMemoryConfigurations,
  InMemoryMediaGrants,
  InMemoryTasks,
  invalidRequest,
  queuedTask,
  TEST_SECRETS_KEY,
  testOversightOptions,
} from './testing';
import { mediaBlobKey } from '@workline/contracts';
import { TasksService } from './tasks.service';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0]);
const MP4 = Buffer.from('\0\0\0\x18ftypmp42\0\0\0\0', 'latin1');
const PDF = Buffer.from('%PDF-1.7\n');
const MEDIA_KEY = 'med_uploaded0000000000';

describe('TasksService', () => {
  let root: string;
  let blobs: FsBlobStore;
  let grants: InMemoryMediaGrants;
  let tasks: InMemoryTasks;
  let buckets: BucketsService;
  let service: TasksService;
  let configurationId: string;
  let bucketId: string;

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tasks-spec-'));
    blobs = new FsBlobStore(join(root, 'blobs'));
    const bucketRoot = join(root, 'bucket');
    await mkdir(bucketRoot);
    await Promise.all([
      writeFile(join(bucketRoot, 'photo.png'), PNG),
      writeFile(join(bucketRoot, 'clip.mp4'), MP4),
      writeFile(join(bucketRoot, 'doc.pdf'), PDF),
    ]);
    const options = testOversightOptions(blobs);
    const configurations = new ConfigurationsService(new InMemoryConfigurations());
    configurationId = (await configurations.create({ workstream_id: 'ws-1', account_id: 'acc-1', name: 'Shelves' })).id;
    buckets = new BucketsService(new InMemoryBuckets(), options);
    bucketId = (await buckets.create({ workstream_id: 'ws-1', account_id: 'acc-1', bucket: { driver: 'fs', root: bucketRoot } })).id;
    grants = new InMemoryMediaGrants();
    await grants.create({
      id: MEDIA_KEY,
      workstreamId: 'ws-1',
      accountId: 'acc-1',
      configurationId,
      expiresAt: new Date(Date.now() + 60_000),
    });
    tasks = new InMemoryTasks(grants);
    service = new TasksService(tasks, configurations, buckets, options);
  });
  afterEach(() => rm(root, { recursive: true, force: true }));

  const upload = (key: string, bytes: Buffer, contentType: string) => blobs.put(mediaBlobKey(key), Readable.from(bytes), { contentType });

  const request = (fields: Partial<TaskCreateRequest> = {}): TaskCreateRequest => ({
    workstream_id: 'ws-1',
    account_id: 'acc-1',
    sealed_api_key: 'sealed-key',
    media_key: MEDIA_KEY,
    configuration_id: configurationId,
    ...fields,
  });

  /** Creates a task and answers its id. */
  async function create(fields: Partial<TaskCreateRequest> = {}): Promise<string> {
    return (await service.create(request(fields))).task_id!;
  }

  describe('creation from an upload', () => {
    it('queues a task for uploaded media, its callback credentials sealed apart from the URL', async () => {
      await upload(MEDIA_KEY, PNG, 'image/png');
      const reply = await service.create(
        request({
          callback_url: 'https://user:pa%20ss@hooks.example.com/done',
          existing_tags: [{ value: 'cat', confidence_score: 0.5 }],
          metadata: [{ key: 'batch', value: 'b-17' }],
        }),
      );
      expect(reply).toEqual({ task_id: expect.stringMatching(/^tsk_[A-Za-z0-9_-]{22}$/), replayed: false });
      const row = tasks.rows.get(reply.task_id!)!;
      expect(row).toMatchObject({
        state: 'QUEUED',
        workstreamId: 'ws-1',
        accountId: 'acc-1',
        configurationId,
        mediaKey: MEDIA_KEY,
        bucketId: null,
        mediaType: 'image/png',
        callbackUrl: 'https://hooks.example.com/done',
        sealedApiKey: 'sealed-key',
        existingTags: [{ value: 'cat', confidence_score: 0.5 }],
        metadata: [{ key: 'batch', value: 'b-17' }],
      });
      expect(new SecretBox(TEST_SECRETS_KEY).open(row.sealedAuthorization!)).toBe(`Basic ${Buffer.from('user:pa ss').toString('base64')}`);
    });

    it('treats a malformed key, an unknown one and one granted to another workstream alike: not found', async () => {
      await grants.create({
        id: 'med_otherworkstream000',
        workstreamId: 'ws-2',
        accountId: 'acc-1',
        configurationId,
        expiresAt: new Date(),
      });
      for (const key of ['not-a-media-key', 'med_neverGranted000000', 'med_otherworkstream000']) {
        await expect(service.create(request({ media_key: key }))).rejects.toEqual(
          domainError(
            ErrorCode.NotFound,
            `media ${key} not found: get a media_key from POST /v1/signed-url, or send bucket_id for media in a mounted bucket`,
          ),
        );
      }
      expect(tasks.rows.size).toBe(0);
    });

    it('refuses media granted for another configuration, not yet uploaded, or of an unsupported type', async () => {
      await grants.create({
        id: 'med_otherconfig0000000',
        workstreamId: 'ws-1',
        accountId: 'acc-1',
        configurationId: 'cfg-x',
        expiresAt: new Date(),
      });
      await expect(service.create(request({ media_key: 'med_otherconfig0000000' }))).rejects.toEqual(
        invalidRequest(
          'configuration_id',
          'media med_otherconfig0000000 was granted for configuration cfg-x: send the same configuration_id',
        ),
      );
      await expect(service.create(request())).rejects.toEqual(
        domainError(ErrorCode.Conflict, `media ${MEDIA_KEY} has not been uploaded: PUT its bytes to the media_upload_url first`),
      );
      await upload(MEDIA_KEY, PNG, 'image/gif');
      await expect(service.create(request())).rejects.toEqual(
        invalidRequest('media_key', `media ${MEDIA_KEY} has an unsupported type image/gif`),
      );
      expect(tasks.rows.size).toBe(0);
    });

    it("refuses another workstream's configuration", async () => {
      await expect(service.create(request({ workstream_id: 'ws-2' }))).rejects.toEqual(
        domainError(ErrorCode.NotFound, `configuration ${configurationId} not found`),
      );
    });

    it('answers not found when the sweep removed the grant between the lookup and the insert', async () => {
      await upload(MEDIA_KEY, PNG, 'image/png');
      const insert = tasks.insert.bind(tasks);
      jest.spyOn(tasks, 'insert').mockImplementation(async (task) => {
        grants.rows.delete(task.media_key);
        return insert(task);
      });
      await expect(service.create(request())).rejects.toMatchObject({
        code: ErrorCode.NotFound,
        message: expect.stringContaining(MEDIA_KEY),
      });
      expect(tasks.rows.size).toBe(0);
    });
  });

  describe('creation with an Idempotency-Key', () => {
    beforeEach(() => upload(MEDIA_KEY, PNG, 'image/png'));

    it("answers the same request again with the task created first; the key is its workstream's own", async () => {
      const first = await service.create(request({ idempotency_key: 'k-1' }));
      const again = await service.create(request({ idempotency_key: 'k-1', sealed_api_key: 'another-sealing' }));
      expect(again).toEqual({ task_id: first.task_id, replayed: true });
      expect(tasks.rows.size).toBe(1);
      expect(await service.create(request({ idempotency_key: 'k-1', workstream_id: 'ws-2', replay_only: true }))).toEqual({
        replayed: false,
      });
    });

    it('refuses the key with another request, and replay_only creates nothing', async () => {
      await service.create(request({ idempotency_key: 'k-1' }));
      await expect(
        service.create(request({ idempotency_key: 'k-1', existing_tags: [{ value: 'x', confidence_score: 1 }] })),
      ).rejects.toMatchObject({
        code: ErrorCode.Validation,
      });
      expect(await service.create(request({ idempotency_key: 'k-2', replay_only: true }))).toEqual({ replayed: false });
      expect(tasks.rows.size).toBe(1);
    });

    it('answers a request that lost the race for its key with the task of the winner', async () => {
      const insert = tasks.insert.bind(tasks);
      jest.spyOn(tasks, 'insert').mockImplementationOnce(async (task) => {
        await insert({ ...task, id: 'tsk_winner' });
        return insert(task);
      });
      expect(await service.create(request({ idempotency_key: 'k-1' }))).toEqual({ task_id: 'tsk_winner', replayed: true });
      expect([...tasks.rows.keys()]).toEqual(['tsk_winner']);
    });
  });

  describe('creation from a mounted bucket', () => {
    it('queues a task for an image of the bucket, typed by its bytes', async () => {
      const id = await create({ bucket_id: bucketId, media_key: 'photo.png' });
      expect(tasks.rows.get(id)).toMatchObject({ bucketId, mediaKey: 'photo.png', mediaType: 'image/png' });
    });

    it('refuses videos, other files, missing objects and keys leaving the bucket', async () => {
      const withKey = (media_key: string) => service.create(request({ bucket_id: bucketId, media_key }));
      await expect(withKey('clip.mp4')).rejects.toEqual(
        invalidRequest(
          'media_key',
          `media clip.mp4 in bucket ${bucketId} is a video (video/mp4): mounted buckets take images only; upload videos ` +
            `through POST /v1/signed-url`,
        ),
      );
      await expect(withKey('doc.pdf')).rejects.toEqual(
        invalidRequest(
          'media_key',
          `media doc.pdf in bucket ${bucketId} is not an image (image/jpeg, image/png, image/gif, image/webp): mounted ` +
            `buckets take images only`,
        ),
      );
      await expect(withKey('missing.png')).rejects.toEqual(
        domainError(ErrorCode.NotFound, `media missing.png not found in bucket ${bucketId}`),
      );
      await expect(withKey('../escape.png')).rejects.toMatchObject({
        code: ErrorCode.Validation,
        errors: [expect.objectContaining({ field: 'media_key' })],
      });
      expect(tasks.rows.size).toBe(0);
    });

    it("refuses another workstream's bucket", async () => {
      await expect(service.create(request({ workstream_id: 'ws-2', bucket_id: bucketId, media_key: 'photo.png' }))).rejects.toMatchObject({
        code: ErrorCode.NotFound,
      });
    });
  });

  describe('status', () => {
    it('shows a task to its account and workstream only', async () => {
      tasks.rows.set('t1', queuedTask({ id: 't1', workstreamId: 'ws-1', accountId: 'acc-1' }));
      expect(await service.get({ account_id: 'acc-1', task_id: 't1' })).toMatchObject({ task_id: 't1', state: 'QUEUED' });
      expect(await service.get({ account_id: 'acc-1', workstream_id: 'ws-1', task_id: 't1' })).not.toHaveProperty('result');
      for (const other of [{ account_id: 'acc-2' }, { account_id: 'acc-1', workstream_id: 'ws-2' }]) {
        await expect(service.get({ ...other, task_id: 't1' })).rejects.toEqual(domainError(ErrorCode.NotFound, 'task t1 not found'));
      }
    });

    it('shows the result of a completed task and the error of a failed one', async () => {
      const at = new Date('2026-11-25T10:00:00.000Z');
      const done = queuedTask({
        id: 'done',
        state: 'COMPLETED',
        existingTags: [{ value: 'cat', confidence_score: 0.5 }],
        updatedTags: [{ value: 'dog', confidence_score: 0.9 }],
        createdAt: at,
        updatedAt: at,
      });
      tasks.rows.set('done', done).set('failed', queuedTask({ id: 'failed', state: 'ERROR' }));
      expect(await service.get({ account_id: 'acc-1', task_id: 'done' })).toEqual({
        task_id: 'done',
        state: 'COMPLETED',
        media_key: 'med_done',
        configuration_id: 'cfg-1',
        bucket_id: null,
        created_at: '2026-11-25T10:00:00.000Z',
        updated_at: '2026-11-25T10:00:00.000Z',
        result: {
          updated_tags: [{ value: 'dog', confidence_score: 0.9 }],
          existing_tags: [{ value: 'cat', confidence_score: 0.5 }],
          metadata: [],
        },
      });
      expect((await service.get({ account_id: 'acc-1', task_id: 'failed' })).error).toEqual({ message: 'the task failed' });
    });
  });

  describe('admin list', () => {
    beforeEach(() => {
      for (let i = 0; i < 5; i++) {
        tasks.rows.set(
          `t${i}`,
          queuedTask({
            id: `t${i}`,
            workstreamId: i < 3 ? 'ws-1' : 'ws-2',
            state: i % 2 ? 'COMPLETED' : 'QUEUED',
            createdAt: new Date(1_000 * i),
          }),
        );
      }
    });

    it('pages through every task newest first, with whose it is', async () => {
      const first = await service.list({ limit: 2 });
      expect(first.tasks.map((task) => [task.task_id, task.workstream_id, task.account_id])).toEqual([
        ['t4', 'ws-2', 'acc-1'],
        ['t3', 'ws-2', 'acc-1'],
      ]);
      const second = await service.list({ limit: 2, cursor: first.next_cursor! });
      expect(second.tasks.map((task) => task.task_id)).toEqual(['t2', 't1']);
      const last = await service.list({ limit: 2, cursor: second.next_cursor! });
      expect(last).toEqual({ tasks: [expect.objectContaining({ task_id: 't0' })], next_cursor: null });
    });

    it('filters by workstream and state, and refuses a cursor it did not answer', async () => {
      const page = await service.list({ workstream_id: 'ws-1', state: 'QUEUED' });
      expect(page.tasks.map((task) => task.task_id)).toEqual(['t2', 't0']);
      await expect(service.list({ cursor: 'garbage' })).rejects.toEqual(
        invalidRequest('cursor', 'cursor is not a cursor this API returned'),
      );
    });
  });

  describe('media', () => {
    it('locates uploaded media in the blob store and bucket media in its bucket', async () => {
      tasks.rows
        .set('up', queuedTask({ id: 'up', mediaKey: MEDIA_KEY }))
        .set('bk', queuedTask({ id: 'bk', mediaKey: 'photo.png', bucketId }));
      expect(await service.locateMedia({ task_id: 'up' })).toEqual({
        source: 'upload',
        blob_key: `media/${MEDIA_KEY}`,
        content_type: 'image/png',
      });
      expect(await service.locateMedia({ task_id: 'bk' })).toEqual({
        source: 'bucket',
        bucket: { driver: 'fs', root: join(root, 'bucket') },
        key: 'photo.png',
        content_type: 'image/png',
      });
      await expect(service.locateMedia({ task_id: 'nope' })).rejects.toEqual(domainError(ErrorCode.NotFound, 'task nope not found'));
      tasks.rows.set('lost', queuedTask({ id: 'lost', bucketId: 'bkt_gone' }));
      await expect(service.locateMedia({ task_id: 'lost' })).rejects.toEqual(domainError(ErrorCode.NotFound, 'bucket bkt_gone not found'));
    });

    it('tells why media can no longer be read, and nothing when it can', async () => {
      await upload(MEDIA_KEY, PNG, 'image/png');
      const media = (mediaKey: string, bucket: string | null, mediaType = 'image/png') =>
        service.unreadableMedia({ mediaKey, bucketId: bucket, mediaType });
      expect(await media(MEDIA_KEY, null)).toBeUndefined();
      expect(await media('med_deleted', null)).toBe('media med_deleted can no longer be read');
      expect(await media('photo.png', bucketId)).toBeUndefined();
      expect(await media('gone.png', bucketId)).toBe(`media gone.png can no longer be read from bucket ${bucketId}`);
      expect(await media('photo.png', 'bkt_gone')).toBe('bucket bkt_gone no longer exists');
      expect(await media('../x', bucketId)).toMatch(/^media \.\.\/x could not be read: /);
    });

    it('tells when a bucket file no longer sniffs as the image type the task was created with', async () => {
      await writeFile(join(root, 'bucket', 'swapped.png'), 'not an image any more');
      expect(await service.unreadableMedia({ mediaKey: 'swapped.png', bucketId, mediaType: 'image/png' })).toBe(
        `media swapped.png in bucket ${bucketId} is no longer the image/png the task was created with`,
      );
      expect(await service.unreadableMedia({ mediaKey: 'photo.png', bucketId, mediaType: 'image/jpeg' })).toBe(
        `media photo.png in bucket ${bucketId} is no longer the image/jpeg the task was created with`,
      );
    });
  });
});
