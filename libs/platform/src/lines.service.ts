import { Injectable } from '@nestjs/common';
import type { LineCreateRequest, LineView } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { randomUUID } from 'node:crypto';

/** Production lines of an account: where runs are sent. */
@Injectable()
export class LinesService {
  constructor(private readonly prisma: PrismaService) {}

  async create(request: LineCreateRequest): Promise<LineView> {
    const row = await this.prisma.productionLine.create({ data: { id: randomUUID(), accountId: request.account_id, name: request.name } });
    return { id: row.id, name: row.name };
  }
}
