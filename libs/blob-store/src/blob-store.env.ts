import { IsIn, IsString, Matches, MinLength, ValidateIf } from 'class-validator';
import { type BlobStore, FsBlobStore } from './blob-store';
import { S3BlobStore } from './s3-blob-store';

const s3 = (env: BlobStoreEnv) => env.BLOB_DRIVER === 's3';

/** Which blob store the apps use (every app that reads or writes blobs must be given the same settings). */
export class BlobStoreEnv {
  @IsIn(['fs', 's3'], { message: 'BLOB_DRIVER must be fs or s3' })
  BLOB_DRIVER: string = 'fs';

  /** Driver fs: the directory (shared by the apps). */
  @IsString()
  BLOB_DIR: string = '.cache/blobs';

  @ValidateIf(s3)
  @Matches(/^https?:\/\/\S+$/, { message: 'S3_ENDPOINT must be an http(s) URL when BLOB_DRIVER=s3' })
  S3_ENDPOINT?: string = undefined;

  @ValidateIf(s3)
  @IsString({ message: 'S3_BUCKET must be set when BLOB_DRIVER=s3' })
  @MinLength(3)
  S3_BUCKET?: string = undefined;

  @ValidateIf(s3)
  @IsString()
  S3_REGION: string = 'us-east-1';

  @ValidateIf(s3)
  @IsString({ message: 'S3_ACCESS_KEY_ID must be set when BLOB_DRIVER=s3' })
  S3_ACCESS_KEY_ID?: string = undefined;

  @ValidateIf(s3)
  @IsString({ message: 'S3_SECRET_ACCESS_KEY must be set when BLOB_DRIVER=s3' })
  S3_SECRET_ACCESS_KEY?: string = undefined;
}

export function createBlobStore(env: BlobStoreEnv): BlobStore {
  if (env.BLOB_DRIVER !== 's3') return new FsBlobStore(env.BLOB_DIR);
  return new S3BlobStore({
    endpoint: env.S3_ENDPOINT!,
    bucket: env.S3_BUCKET!,
    region: env.S3_REGION,
    accessKeyId: env.S3_ACCESS_KEY_ID!,
    secretAccessKey: env.S3_SECRET_ACCESS_KEY!,
  });
}
