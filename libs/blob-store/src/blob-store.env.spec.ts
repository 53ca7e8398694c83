import 'reflect-metadata';
import { loadEnv } from '@workline/config';
import { FsBlobStore } from './blob-store';
import { BlobStoreEnv, createBlobStore } from './blob-store.env';

describe('blob store settings', () => {
  it('uses the filesystem driver by default', () => {
    expect(createBlobStore(loadEnv(BlobStoreEnv, {}))).toBeInstanceOf(FsBlobStore);
  });

  it('names every missing S3 setting when BLOB_DRIVER=s3', () => {
    expect(() => loadEnv(BlobStoreEnv, { BLOB_DRIVER: 's3' })).toThrow(
      /S3_ENDPOINT[\s\S]*S3_BUCKET[\s\S]*S3_ACCESS_KEY_ID[\s\S]*S3_SECRET_ACCESS_KEY/,
    );
    expect(() => loadEnv(BlobStoreEnv, { BLOB_DRIVER: 'gcs' })).toThrow(/BLOB_DRIVER must be fs or s3/);
  });
});
