import { Injectable } from '@nestjs/common';
import { type BucketCreateRequest, type BucketDriver, type BucketView, DomainError, ErrorCode } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { randomBytes } from 'node:crypto';

const invalidRoot = (message: string) => new DomainError(ErrorCode.Validation, `Invalid request: ${message}`, [{ field: 'root', message }]);

/** Mounted buckets: a workstream's own storage, from which tasks take images (spec "Bucket rule"). */
@Injectable()
export class BucketsService {
  constructor(private readonly prisma: PrismaService) {}

  async create(request: BucketCreateRequest): Promise<BucketView> {
    if (!isAbsolute(request.root)) throw invalidRoot('root must be an absolute path');
    const info = await stat(request.root).catch(() => undefined);
    if (!info?.isDirectory()) throw invalidRoot(`root ${request.root} is not a directory readable by the service`);
    const row = await this.prisma.oversightBucket.create({
      data: {
        id: `bkt_${randomBytes(12).toString('base64url')}`,
        workstreamId: request.workstream_id,
        accountId: request.account_id,
        driver: request.driver,
        root: request.root,
      },
    });
    return { id: row.id, workstream_id: row.workstreamId, driver: row.driver as BucketDriver, root: row.root, created_at: row.createdAt.toISOString() };
  }

  /** The caller's bucket; another workstream's is "not found" like an unknown id. */
  async ofWorkstream(workstreamId: string, bucketId: string) {
    const row = await this.prisma.oversightBucket.findUnique({ where: { id: bucketId } });
    if (!row || row.workstreamId !== workstreamId) throw DomainError.notFound(`bucket ${bucketId} not found`);
    return row;
  }
}
