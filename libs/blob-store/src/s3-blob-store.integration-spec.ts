import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import S3rver from 's3rver';
import { BlobTooLargeError } from './blob-store';
import { BlobStoreEnv, createBlobStore } from './blob-store.env';
import { SecretBox } from '@workline/secrets';
import { createServer } from 'node:net';
import { MountedBucketError, MountedObjectError } from './mounted-bucket';
import { S3BlobStore, type S3Settings } from './s3-blob-store';
import { openMountedBucket, S3MountedBucket } from './s3-mounted-bucket';
import { callsOnly } from '@workline/testing';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

const read = async (stream: Readable) => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * The S3 driver against an S3-compatible server run in-process (s3rver). s3rver checks access key ids but
 * not Signature V4 values: the signature itself is checked against AWS's published example (s3-blob-store.spec.ts).
 */
describe('S3 blob store (against s3rver)', () => {
  const directory = mkdtempSync(join(tmpdir(), 's3rver-'));
  let server: S3rver;
  let settings: S3Settings;

  beforeAll(async () => {
    server = new S3rver({
      address: '127.0.0.1',
      port: 0,
      silent: true,
      directory,
      configureBuckets: [{ name: 'workline-media', configs: [] }],
    });
    const { port } = await server.run();
    settings = {
      endpoint: `http://127.0.0.1:${port}`,
      bucket: 'workline-media',
      region: 'us-east-1',
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    };
  });

  afterAll(async () => {
    await server.close();
    rmSync(directory, { recursive: true, force: true });
  });

  it('puts, heads, gets and deletes streamed objects', async () => {
    const store = new S3BlobStore(settings);
    const bytes = Buffer.alloc(300_000, 7);
    await expect(
      store.put('media/med_a-b.c_d', Readable.from([bytes.subarray(0, 100_000), bytes.subarray(100_000)]), { contentType: 'video/mp4' }),
    ).resolves.toEqual({
      size: 300_000,
      contentType: 'video/mp4',
    });
    await expect(store.head('media/med_a-b.c_d')).resolves.toEqual({ size: 300_000, contentType: 'video/mp4' });
    const got = await store.get('media/med_a-b.c_d');
    expect(got?.meta).toEqual({ size: 300_000, contentType: 'video/mp4' });
    expect((await read(got!.stream)).equals(bytes)).toBe(true);
    await store.delete('media/med_a-b.c_d');
    await expect(store.head('media/med_a-b.c_d')).resolves.toBeUndefined();
    await expect(store.get('media/med_a-b.c_d')).resolves.toBeUndefined();
  });

  it('deletes every object of a folder, over several listing pages, and nothing beside it', async () => {
    // Pages of 10 keys (S3's are of 1,000): 25 objects take three listings.
    const store = new S3BlobStore({ ...settings, listPageSize: 10 });
    const keys = Array.from({ length: 25 }, (_, i) => `uploads/u1/${i}.csv`);
    await Promise.all(keys.map((key) => store.put(key, Readable.from(['x']), { contentType: 'text/csv' })));
    await store.put('uploads/u10/kept.csv', Readable.from(['y']), { contentType: 'text/csv' });
    const client = (store as unknown as { s3: { send: (method: string, key?: string) => unknown } }).s3;
    const sent = jest.spyOn(client, 'send');
    await store.deleteFolder('uploads/u1/');
    // Three listings: 10 keys, 10 more (each page's deleted keys leave the listing), and the last 5.
    expect(sent.mock.calls.filter(([method, key]) => method === 'GET' && key === undefined)).toHaveLength(3);
    sent.mockRestore();
    expect(await Promise.all(keys.map((key) => store.head(key)))).toEqual(keys.map(() => undefined));
    await expect(store.head('uploads/u10/kept.csv')).resolves.toEqual({ size: 1, contentType: 'text/csv' });
  });

  it('deletes what was written before a date directly in a folder, at most `limit` at a time, nothing deeper', async () => {
    const store = new S3BlobStore(settings);
    for (const name of ['a', 'b', 'c'])
      await store.put(`rpc-replies/svc/${name}.json`, Readable.from(['{}']), { contentType: 'application/json' });
    await store.put('rpc-replies/svc/deeper/d.json', Readable.from(['{}']), { contentType: 'application/json' });
    await store.put('rpc-replies/svc2/e.json', Readable.from(['{}']), { contentType: 'application/json' });
    await expect(store.deleteOlderThan('rpc-replies/svc/', new Date(Date.now() - 60_000), 10)).resolves.toBe(0);
    const later = new Date(Date.now() + 60_000);
    await expect(store.deleteOlderThan('rpc-replies/svc/', later, 2)).resolves.toBe(2);
    await expect(store.deleteOlderThan('rpc-replies/svc/', later, 10)).resolves.toBe(1);
    await expect(store.head('rpc-replies/svc/c.json')).resolves.toBeUndefined();
    await expect(store.head('rpc-replies/svc/deeper/d.json')).resolves.toBeDefined();
    await expect(store.head('rpc-replies/svc2/e.json')).resolves.toBeDefined();
  });

  it('refuses a body over the limit and stores nothing', async () => {
    const store = new S3BlobStore(settings);
    await expect(
      store.put('media/too-big', Readable.from([Buffer.alloc(600), Buffer.alloc(600)]), { contentType: 'text/plain', maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    await expect(store.head('media/too-big')).resolves.toBeUndefined();
  });

  it('fails loudly with unknown credentials or a missing bucket', async () => {
    await expect(
      new S3BlobStore({ ...settings, accessKeyId: 'NOBODY' }).put('media/x', Readable.from([Buffer.from('x')]), {
        contentType: 'text/plain',
      }),
    ).rejects.toThrow(/S3 PUT media\/x answered 403 \(InvalidAccessKeyId\)/);
    await expect(
      new S3BlobStore({ ...settings, bucket: 'no-such-bucket' }).put('media/x', Readable.from([Buffer.from('x')]), {
        contentType: 'text/plain',
      }),
    ).rejects.toThrow(/answered 404 \(NoSuchBucket\)/);
  });

  it('is what createBlobStore returns for BLOB_DRIVER=s3', async () => {
    const env = Object.assign(new BlobStoreEnv(), {
      BLOB_DRIVER: 's3',
      S3_ENDPOINT: settings.endpoint,
      S3_BUCKET: settings.bucket,
      S3_ACCESS_KEY_ID: 'S3RVER',
      S3_SECRET_ACCESS_KEY: 'S3RVER',
    });
    const store = createBlobStore(env);
    expect(store).toBeInstanceOf(S3BlobStore);
    await store.put('media/y', Readable.from([Buffer.from('hello')]), { contentType: 'text/plain' });
    await expect(store.head('media/y')).resolves.toEqual({ size: 5, contentType: 'text/plain' });
  });

  describe('mounted S3 buckets (read-only, under a prefix)', () => {
    const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.alloc(5000, 1)]);
    let mounted: S3MountedBucket;

    beforeAll(async () => {
      const store = new S3BlobStore(settings);
      await store.put('client/a/photo.png', Readable.from([PNG]), { contentType: 'application/octet-stream' });
      await store.put('client/empty', Readable.from([]), { contentType: 'application/octet-stream' });
      await store.put('elsewhere.png', Readable.from([PNG]), { contentType: 'image/png' });
      mounted = new S3MountedBucket({ ...settings, prefix: 'client/' });
    });

    it('sniffs an object from its first bytes, streams it whole, and sees only keys under its prefix', async () => {
      await expect(mounted.head('a/photo.png')).resolves.toEqual({ size: PNG.length, mediaType: 'image/png' });
      await expect(mounted.head('empty')).resolves.toEqual({ size: 0, mediaType: undefined });
      await expect(mounted.head('a/missing.png')).resolves.toBeUndefined();
      await expect(mounted.head('../elsewhere.png')).rejects.toBeInstanceOf(MountedObjectError);
      await expect(mounted.get('elsewhere.png')).resolves.toBeUndefined();
      const got = await mounted.get('a/photo.png');
      expect(got).toMatchObject({ size: PNG.length, mediaType: 'image/png' });
      expect((await read(got!.stream)).equals(PNG)).toBe(true);
    });

    it('sniffs what it serves: an object replaced after it was checked is served as what it is now, from its first byte', async () => {
      const store = new S3BlobStore(settings);
      await store.put('client/a/replaced.png', Readable.from([PNG]), { contentType: 'image/png' });
      await expect(mounted.head('a/replaced.png')).resolves.toEqual({ size: PNG.length, mediaType: 'image/png' });
      const text = Buffer.from('<html>not an image</html>'.repeat(1000));
      await store.put('client/a/replaced.png', Readable.from([text]), { contentType: 'image/png' });
      const got = await mounted.get('a/replaced.png');
      expect(got).toMatchObject({ size: text.length, mediaType: undefined });
      expect((await read(got!.stream)).equals(text)).toBe(true);
      const short = Buffer.from([0xff, 0xd8, 0xff]);
      await store.put('client/a/short.jpg', Readable.from([short]), { contentType: 'application/octet-stream' });
      const tiny = await mounted.get('a/short.jpg');
      expect(tiny).toMatchObject({ size: 3, mediaType: 'image/jpeg' });
      expect((await read(tiny!.stream)).equals(short)).toBe(true);
    });

    it('is what openMountedBucket gives for a stored s3 bucket, its secret unsealed only there', async () => {
      const box = new SecretBox('test-secrets-key');
      const bucket = openMountedBucket(
        {
          driver: 's3',
          endpoint: settings.endpoint,
          region: 'us-east-1',
          bucket: settings.bucket,
          prefix: 'client/a/',
          access_key_id: 'S3RVER',
          sealed_secret_access_key: box.seal('S3RVER'),
          force_path_style: true,
        },
        box,
      );
      expect(bucket).toBeInstanceOf(S3MountedBucket);
      await expect(bucket.head('photo.png')).resolves.toEqual({ size: PNG.length, mediaType: 'image/png' });
    });

    it('check() passes for good settings and names the setting at fault otherwise', async () => {
      await expect(mounted.check()).resolves.toBeUndefined();
      const closedPort = await new Promise<number>((resolve) => {
        const probe = createServer().listen(0, '127.0.0.1', () => {
          const { port } = probe.address() as { port: number };
          probe.close(() => resolve(port));
        });
      });
      const cases: [Partial<S3Settings>, string, RegExp][] = [
        [{ bucket: 'no-such-bucket' }, 'bucket', /bucket no-such-bucket does not exist/],
        [{ accessKeyId: 'NOBODY' }, 'access_key_id', /credentials were refused: the S3 service answered 403 \(InvalidAccessKeyId\)/],
        [{ endpoint: `http://127.0.0.1:${closedPort}` }, 'endpoint', /could not be reached \(ECONNREFUSED\)/],
      ];
      for (const [change, field, message] of cases) {
        const error = await new S3MountedBucket({ ...settings, ...change }).check().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(MountedBucketError);
        expect({ field: (error as MountedBucketError).field, message: (error as Error).message }).toEqual({
          field,
          message: expect.stringMatching(message),
        });
      }
      // A missing bucket is not a missing object: reading from it fails loudly.
      await expect(new S3MountedBucket({ ...settings, bucket: 'no-such-bucket' }).head('a/photo.png')).rejects.toThrow(
        /answered 404 \(NoSuchBucket\)/,
      );
    });
  });
});
