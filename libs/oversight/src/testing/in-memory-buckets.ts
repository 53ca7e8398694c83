import type { OversightBucket } from '@workline/db';
import type { BucketRows, NewBucket } from '../buckets.repository';

export class InMemoryBuckets implements BucketRows {
  readonly rows = new Map<string, OversightBucket>();

  async create(row: NewBucket): Promise<OversightBucket> {
    const created: OversightBucket = {
      root: null,
      s3: null,
      sealedSecretAccessKey: null,
      ...row,
      createdAt: new Date(),
    };
    this.rows.set(row.id, created);
    return created;
  }

  async findById(id: string): Promise<OversightBucket | null> {
    return this.rows.get(id) ?? null;
  }
}
