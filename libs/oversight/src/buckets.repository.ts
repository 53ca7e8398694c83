import { Injectable } from '@nestjs/common';
import { type OversightBucket, PrismaService, type PublicSurface } from '@workline/db';

/** A bucket as registered: fs with its root, or s3 with its settings and sealed secret. */
export interface NewBucket {
  id: string;
  workstreamId: string;
  accountId: string;
  driver: 'fs' | 's3';
  root?: string;
  s3?: Record<string, string | boolean>;
  sealedSecretAccessKey?: string;
}

/** The mounted bucket rows of PostgreSQL (BucketsService holds the rules). */
@Injectable()
export class BucketsRepository {
  constructor(private readonly prisma: PrismaService) {}

  create(row: NewBucket): Promise<OversightBucket> {
    return this.prisma.oversightBucket.create({ data: row });
  }

  findById(id: string): Promise<OversightBucket | null> {
    return this.prisma.oversightBucket.findUnique({ where: { id } });
  }
}

export type BucketRows = PublicSurface<BucketsRepository>;
