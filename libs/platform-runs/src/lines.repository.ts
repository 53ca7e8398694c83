import { Injectable } from '@nestjs/common';
import { PrismaService } from '@workline/db';

export interface LineRow {
  id: string;
  accountId: string;
  name: string;
}

/** The production_line table. */
@Injectable()
export class LinesRepository {
  constructor(private readonly prisma: PrismaService) {}

  async insert(line: LineRow): Promise<LineRow> {
    return this.prisma.productionLine.create({ data: line });
  }

  /** The account's lines, oldest first. */
  async ofAccount(accountId: string): Promise<LineRow[]> {
    return this.prisma.productionLine.findMany({ where: { accountId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
  }
}
