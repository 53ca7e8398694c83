import { existsSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalQuery, S3_SPOOL_PREFIX, S3BlobStore, S3Client } from './s3-blob-store';

const EXAMPLE = {
  endpoint: 'https://s3.amazonaws.com',
  bucket: 'examplebucket',
  region: 'us-east-1',
  accessKeyId: 'AKIAIOSFODNN7EXAMPLE',
  secretAccessKey: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY',
};
const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855';

describe('S3 Signature Version 4', () => {
  it('matches the GET Object example of the AWS Signature Version 4 documentation', () => {
    const headers = new S3Client(EXAMPLE).sign(
      'GET',
      '/test.txt',
      EMPTY,
      { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9' },
      new Date('2013-05-24T00:00:00Z'),
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,' +
        'Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
    );
    expect(headers['x-amz-date']).toBe('20130524T000000Z');
  });

  it('matches the GET Bucket (List Objects) example: the query string is signed in canonical order', () => {
    const query = canonicalQuery({ prefix: 'J', 'max-keys': '2' });
    expect(query).toBe('max-keys=2&prefix=J');
    const headers = new S3Client(EXAMPLE).sign(
      'GET',
      '/',
      EMPTY,
      { host: 'examplebucket.s3.amazonaws.com' },
      new Date('2013-05-24T00:00:00Z'),
      query,
    );
    expect(headers.authorization).toBe(
      'AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,' +
        'SignedHeaders=host;x-amz-content-sha256;x-amz-date,' +
        'Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
    );
  });

  it('encodes query values as RFC 3986 asks', () => {
    expect(canonicalQuery({ prefix: "a b/c!'", 'list-type': '2' })).toBe('list-type=2&prefix=a%20b%2Fc%21%27');
  });
});

describe('S3BlobStore: spools of PUTs a killed process left', () => {
  const spools = mkdtempSync(join(tmpdir(), 'spool-sweep-'));
  afterAll(() => rmSync(spools, { recursive: true, force: true }));

  it('are deleted from the spool root once neither they nor their file were touched since the cutoff', async () => {
    const past = new Date(Date.now() - 3_600_000);
    const spool = (name: string, old: { dir: boolean; file: boolean }) => {
      const dir = join(spools, name);
      mkdirSync(dir);
      writeFileSync(join(dir, 'body'), 'half');
      if (old.file) utimesSync(join(dir, 'body'), past, past);
      if (old.dir) utimesSync(dir, past, past);
      return dir;
    };
    const abandoned = spool(`${S3_SPOOL_PREFIX}abandoned`, { dir: true, file: true });
    const sending = spool(`${S3_SPOOL_PREFIX}sending`, { dir: true, file: false });
    const other = spool('someone-else', { dir: true, file: true });
    const store = new S3BlobStore({ ...EXAMPLE, endpoint: 'http://127.0.0.1:9' }, spools);
    await expect(store.deleteInterruptedWrites('media/', new Date(Date.now() - 60_000), 10)).resolves.toBe(1);
    expect([abandoned, sending, other].map((dir) => existsSync(dir))).toEqual([false, true, true]);
    await expect(store.deleteInterruptedWrites('../', new Date(), 10)).rejects.toThrow(/invalid blob/);
  });
});
