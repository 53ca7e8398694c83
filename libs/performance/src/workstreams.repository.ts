import { Injectable } from '@nestjs/common';
import { ServiceName, Topic, type UseCaseDto, type WorkstreamCreatedEvent } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { enqueueEvent, OutboxRelay } from '@workline/messaging';

export interface WorkstreamRow {
  id: string;
  accountId: string;
  name: string;
  useCases: unknown;
  qcScoreThreshold: number;
  qcSampleRate: number;
  createdAt: Date;
}

export type NewWorkstream = Omit<WorkstreamRow, 'useCases' | 'createdAt'> & { useCases: UseCaseDto[] };

/** The workstream table, and the outbox its creation events go through. */
@Injectable()
export class WorkstreamsRepository {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxRelay,
  ) {}

  /** Inserts the workstream and, in the same transaction, the event `announce` makes of the stored row. */
  async insert(workstream: NewWorkstream, announce: (row: WorkstreamRow) => WorkstreamCreatedEvent): Promise<WorkstreamRow> {
    const created = await this.prisma.$transaction(async (tx) => {
      const row = await tx.workstream.create({ data: { ...workstream, useCases: workstream.useCases as object[] } });
      await enqueueEvent(tx, ServiceName.Performance, Topic.WorkstreamCreated, announce(row), { key: row.id });
      return row;
    });
    this.outbox.poke();
    return created;
  }

  async find(workstreamId: string): Promise<WorkstreamRow | null> {
    return this.prisma.workstream.findUnique({ where: { id: workstreamId } });
  }
}
