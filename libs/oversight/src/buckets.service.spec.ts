import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { ErrorCode } from '@workline/contracts';
import { SecretBox } from '@workline/secrets';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bucketSpec, BucketsService } from './buckets.service';
import { InMemoryBuckets, invalidRequest, TEST_SECRETS_KEY, testOversightOptions } from './testing';

describe('BucketsService', () => {
  let root: string;
  let repository: InMemoryBuckets;
  let service: BucketsService;
  const owner = { workstream_id: 'ws-1', account_id: 'acc-1' };

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'buckets-spec-'));
  });
  afterAll(() => rm(root, { recursive: true, force: true }));

  beforeEach(() => {
    repository = new InMemoryBuckets();
    service = new BucketsService(repository, testOversightOptions(new FsBlobStore(root)));
  });

  it('registers an fs bucket whose root is a readable directory, and answers it to its workstream', async () => {
    const view = await service.create({ ...owner, bucket: { driver: 'fs', root } });
    expect(view).toEqual({
      id: expect.stringMatching(/^bkt_[A-Za-z0-9_-]{16}$/),
      workstream_id: 'ws-1',
      driver: 'fs',
      root,
      created_at: repository.rows.get(view.id)!.createdAt.toISOString(),
    });
    const row = await service.ofWorkstream('ws-1', view.id);
    expect(row).toMatchObject({ accountId: 'acc-1', driver: 'fs', root });
    expect(bucketSpec(row)).toEqual({ driver: 'fs', root });
  });

  it('refuses an fs root that is relative, missing or a file, naming the field', async () => {
    const file = join(root, 'file.txt');
    await writeFile(file, 'x');
    await expect(service.create({ ...owner, bucket: { driver: 'fs', root: 'relative/dir' } })).rejects.toEqual(
      invalidRequest('root', 'root must be an absolute path'),
    );
    for (const path of [join(root, 'missing'), file]) {
      await expect(service.create({ ...owner, bucket: { driver: 'fs', root: path } })).rejects.toEqual(
        invalidRequest('root', `root ${path} is not a directory readable by the service`),
      );
    }
    expect(repository.rows.size).toBe(0);
  });

  it('refuses an unknown driver', async () => {
    const bucket = { driver: 'ftp', root } as unknown as { driver: 'fs'; root: string };
    await expect(service.create({ ...owner, bucket })).rejects.toEqual(invalidRequest('driver', 'driver must be one of: fs, s3'));
  });

  it('refuses an s3 bucket whose endpoint cannot be reached, and stores nothing', async () => {
    const bucket = {
      driver: 's3' as const,
      endpoint: 'http://127.0.0.1:1',
      region: 'us-east-1',
      bucket: 'media',
      prefix: '',
      access_key_id: 'AKIA',
      sealed_secret_access_key: new SecretBox(TEST_SECRETS_KEY).seal('secret'),
      force_path_style: true,
    };
    await expect(service.create({ ...owner, bucket })).rejects.toMatchObject({
      code: ErrorCode.Validation,
      errors: [{ field: 'endpoint', message: expect.stringContaining('endpoint http://127.0.0.1:1 could not be reached') }],
    });
    expect(repository.rows.size).toBe(0);
  });

  it('passes a stored s3 bucket around with its settings and its secret still sealed', async () => {
    const sealed = new SecretBox(TEST_SECRETS_KEY).seal('secret');
    const settings = {
      endpoint: 'https://s3.test',
      region: 'eu',
      bucket: 'media',
      prefix: 'p/',
      access_key_id: 'AKIA',
      force_path_style: false,
    };
    const row = await repository.create({
      id: 'bkt_s3',
      workstreamId: 'ws-1',
      accountId: 'acc-1',
      driver: 's3',
      s3: settings,
      sealedSecretAccessKey: sealed,
    });
    expect(bucketSpec(row)).toEqual({ driver: 's3', ...settings, sealed_secret_access_key: sealed });
  });

  it("answers another workstream's bucket, or an unknown one, as not found", async () => {
    const { id } = await service.create({ ...owner, bucket: { driver: 'fs', root } });
    await expect(service.ofWorkstream('ws-2', id)).rejects.toMatchObject({ code: ErrorCode.NotFound, message: `bucket ${id} not found` });
    await expect(service.ofWorkstream('ws-1', 'bkt_x')).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: 'bucket bkt_x not found',
    });
  });
});
