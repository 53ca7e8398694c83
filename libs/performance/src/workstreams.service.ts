import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode, Topic, type UseCaseDto, type WorkstreamCreatedEvent, type WorkstreamCreateRequest, type WorkstreamView } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { enqueueEvent, OutboxRelay } from '@workline/kafka';
import { randomUUID } from 'node:crypto';

export const PERFORMANCE_SOURCE = 'performance';

/** Workstreams and their use cases: the configuration that performance records are validated against. */
@Injectable()
export class WorkstreamsService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxRelay,
  ) {}

  async create(request: WorkstreamCreateRequest): Promise<WorkstreamView> {
    const ids = request.use_cases.map((u) => u.id);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated) {
      throw new DomainError(ErrorCode.Validation, `Invalid request: use case "${repeated}" is listed twice`, [
        { field: 'use_cases', message: `use case "${repeated}" is listed twice` },
      ]);
    }
    const useCases: UseCaseDto[] = request.use_cases.map((u) => ({ id: u.id, task_definition_ids: [...new Set(u.task_definition_ids)] }));
    const id = randomUUID();
    const created = await this.prisma.$transaction(async (tx) => {
      const row = await tx.workstream.create({ data: { id, accountId: request.account_id, name: request.name, useCases: useCases as object[] } });
      const event: WorkstreamCreatedEvent = {
        workstream_id: row.id,
        account_id: row.accountId,
        name: row.name,
        use_cases: useCases,
        created_at: row.createdAt.toISOString(),
      };
      await enqueueEvent(tx, PERFORMANCE_SOURCE, Topic.WorkstreamCreated, event, { key: row.id });
      return row;
    });
    this.outbox.poke();
    return toView(created);
  }

  async get(workstreamId: string): Promise<WorkstreamView> {
    const row = await this.prisma.workstream.findUnique({ where: { id: workstreamId } });
    if (!row) throw DomainError.notFound(`workstream ${workstreamId} not found`);
    return toView(row);
  }
}

function toView(row: { id: string; accountId: string; name: string; useCases: unknown; createdAt: Date }): WorkstreamView {
  return { id: row.id, account_id: row.accountId, name: row.name, use_cases: row.useCases as UseCaseDto[], created_at: row.createdAt.toISOString() };
}
