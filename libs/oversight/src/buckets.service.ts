import { Inject, Injectable } from '@nestjs/common';
import { MountedBucketError, S3MountedBucket } from '@workline/blob-store';
import { type BucketCreateRequest, type BucketView, DomainError, ErrorCode, type MountedBucketSpec } from '@workline/contracts';
import type { OversightBucket } from '@workline/db';
import { SecretBox } from '@workline/secrets';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { randomBytes } from 'node:crypto';
import { type BucketRows, BucketsRepository } from './buckets.repository';
import { OVERSIGHT_OPTIONS, type OversightOptions } from './oversight.options';

const invalid = (field: string, message: string) =>
  new DomainError(ErrorCode.Validation, `Invalid request: ${message}`, [{ field, message }]);

/** The non-secret settings of an S3 bucket, as stored (the secret access key is in its own sealed column). */
interface StoredS3Settings {
  endpoint: string;
  region: string;
  bucket: string;
  prefix: string;
  access_key_id: string;
  force_path_style: boolean;
}

interface BucketRow {
  id: string;
  workstreamId: string;
  driver: string;
  root: string | null;
  s3: unknown;
  sealedSecretAccessKey: string | null;
  createdAt: Date;
}

/** How the services pass a stored bucket around (MediaLocation, openMountedBucket): its secret still sealed. */
export function bucketSpec(row: BucketRow): MountedBucketSpec {
  if (row.driver === 'fs') return { driver: 'fs', root: row.root ?? '' };
  return { driver: 's3', ...(row.s3 as StoredS3Settings), sealed_secret_access_key: row.sealedSecretAccessKey ?? '' };
}

function toBucketView(row: BucketRow): BucketView {
  const settings = row.driver === 'fs' ? { root: row.root ?? '' } : (row.s3 as StoredS3Settings);
  return {
    id: row.id,
    workstream_id: row.workstreamId,
    driver: row.driver as BucketView['driver'],
    ...settings,
    created_at: row.createdAt.toISOString(),
  };
}

/** Mounted buckets: a workstream's own storage, from which tasks take images (spec "Bucket rule"). */
@Injectable()
export class BucketsService {
  private readonly box: SecretBox;

  constructor(
    @Inject(BucketsRepository) private readonly repository: BucketRows,
    @Inject(OVERSIGHT_OPTIONS) options: OversightOptions,
  ) {
    this.box = new SecretBox(options.secretsKey);
  }

  /** Registers a bucket once it can be read as configured: a bad setting is a 422 naming the field. */
  async create(request: BucketCreateRequest): Promise<BucketView> {
    const spec = request.bucket;
    const id = `bkt_${randomBytes(12).toString('base64url')}`;
    const owner = { id, workstreamId: request.workstream_id, accountId: request.account_id };
    if (spec.driver === 'fs') {
      if (!isAbsolute(spec.root)) throw invalid('root', 'root must be an absolute path');
      const info = await stat(spec.root).catch(() => undefined);
      if (!info?.isDirectory()) throw invalid('root', `root ${spec.root} is not a directory readable by the service`);
      return toBucketView(await this.repository.create({ ...owner, driver: 'fs', root: spec.root }));
    }
    if (spec.driver !== 's3') throw invalid('driver', 'driver must be one of: fs, s3');
    const { sealed_secret_access_key: sealed, driver: _driver, ...settings } = spec;
    const s3: StoredS3Settings = { ...settings };
    try {
      await new S3MountedBucket({
        ...s3,
        accessKeyId: s3.access_key_id,
        secretAccessKey: this.box.open(sealed),
        forcePathStyle: s3.force_path_style,
      }).check();
    } catch (error) {
      if (error instanceof MountedBucketError) throw invalid(error.field, error.message);
      throw error;
    }
    return toBucketView(await this.repository.create({ ...owner, driver: 's3', s3: { ...s3 }, sealedSecretAccessKey: sealed }));
  }

  /** A stored bucket, whoever's it is (a task's: its workstream was checked when the task was created). */
  find(bucketId: string): Promise<OversightBucket | null> {
    return this.repository.findById(bucketId);
  }

  /** The caller's bucket; another workstream's is "not found" like an unknown id. */
  async ofWorkstream(workstreamId: string, bucketId: string) {
    const row = await this.repository.findById(bucketId);
    if (!row || row.workstreamId !== workstreamId) throw DomainError.notFound(`bucket ${bucketId} not found`);
    return row;
  }
}
