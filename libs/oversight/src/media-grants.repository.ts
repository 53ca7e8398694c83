import { Injectable } from '@nestjs/common';
import { type OversightMediaGrant, PrismaService, type PublicSurface } from '@workline/db';

export type NewMediaGrant = Omit<OversightMediaGrant, 'createdAt'>;

/** The upload grant rows of PostgreSQL (MediaGrantsService holds the rules). */
@Injectable()
export class MediaGrantsRepository {
  constructor(private readonly prisma: PrismaService) {}

  async create(grant: NewMediaGrant): Promise<void> {
    await this.prisma.oversightMediaGrant.create({ data: grant });
  }

  /** The ids of at most `limit` grants that expired before `cutoff`, longest expired first. */
  async expiredBefore(cutoff: Date, limit: number): Promise<string[]> {
    const grants = await this.prisma.oversightMediaGrant.findMany({
      where: { expiresAt: { lt: cutoff } },
      select: { id: true },
      orderBy: { expiresAt: 'asc' },
      take: limit,
    });
    return grants.map((grant) => grant.id);
  }

  /**
   * Deletes a grant in one transaction that holds it, after `beforeDelete` (told whether a task uses the
   * grant's media) has run; if that throws, the transaction rolls back and the grant stays. False when a task
   * creation holds the grant: the grant stays too.
   */
  async retire(id: string, beforeDelete: (usedByTask: boolean) => Promise<void>): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      // skip locked: a task creation holding the grant (FOR SHARE, TasksRepository) is under way; the next sweep sees its task.
      const locked = await tx.$queryRaw<{ id: string }[]>`select id from oversight_media_grant where id = ${id} for update skip locked`;
      if (!locked.length) return false;
      const used = await tx.oversightTask.findFirst({ where: { mediaKey: id, bucketId: null }, select: { id: true } });
      await beforeDelete(used !== null);
      await tx.oversightMediaGrant.delete({ where: { id } });
      return true;
    });
  }
}

export type MediaGrantRows = PublicSurface<MediaGrantsRepository>;
