import { Injectable } from '@nestjs/common';
import type { ConfigurationCreateRequest, ConfigurationView } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { randomUUID } from 'node:crypto';

/** Oversight configurations of a workstream: which events its tasks emit and for which tool project. */
@Injectable()
export class ConfigurationsService {
  constructor(private readonly prisma: PrismaService) {}

  async create(request: ConfigurationCreateRequest): Promise<ConfigurationView> {
    const row = await this.prisma.oversightConfiguration.create({
      data: {
        id: randomUUID(),
        workstreamId: request.workstream_id,
        accountId: request.account_id,
        name: request.name,
        extendedEvents: request.extended_events ?? false,
        toolProjectId: request.tool_project_id ?? null,
      },
    });
    return {
      id: row.id,
      workstream_id: row.workstreamId,
      name: row.name,
      extended_events: row.extendedEvents,
      tool_project_id: row.toolProjectId,
      created_at: row.createdAt.toISOString(),
    };
  }
}
