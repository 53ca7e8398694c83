import { Inject, Injectable } from '@nestjs/common';
import { type ConfigurationCreateRequest, type ConfigurationGetRequest, type ConfigurationView, DomainError } from '@workline/contracts';
import { ImmutableRowCache, type OversightConfiguration } from '@workline/db';
import { randomUUID } from 'node:crypto';
import { type ConfigurationRows, ConfigurationsRepository } from './configurations.repository';

/** Oversight configurations of a workstream: which events its tasks emit and for which tool project. */
@Injectable()
export class ConfigurationsService {
  /** Configurations never change once created and are never deleted: task creation reads them from memory. */
  private readonly rows = new ImmutableRowCache<OversightConfiguration>();

  constructor(@Inject(ConfigurationsRepository) private readonly repository: ConfigurationRows) {}

  async create(request: ConfigurationCreateRequest): Promise<ConfigurationView> {
    const row = await this.repository.create({
      id: randomUUID(),
      workstreamId: request.workstream_id,
      accountId: request.account_id,
      name: request.name,
      extendedEvents: request.extended_events ?? false,
      toolProjectId: request.tool_project_id ?? null,
    });
    return toView(row);
  }

  /**
   * A configuration of the caller's workstream. Another workstream's configuration is "not found" like an
   * unknown one, so a key never learns which ids exist elsewhere (docs/oversight-api.md, Decisions).
   */
  async get(request: ConfigurationGetRequest): Promise<ConfigurationView> {
    const row = await this.repository.findById(request.configuration_id);
    const visible = row && row.accountId === request.account_id && (!request.workstream_id || row.workstreamId === request.workstream_id);
    if (!visible) throw DomainError.notFound(`configuration ${request.configuration_id} not found`);
    return toView(row);
  }

  async ofWorkstream(workstreamId: string, configurationId: string): Promise<OversightConfiguration> {
    const row = await this.rows.get(configurationId, () => this.repository.findById(configurationId));
    if (!row || row.workstreamId !== workstreamId) throw DomainError.notFound(`configuration ${configurationId} not found`);
    return row;
  }
}

function toView(row: {
  id: string;
  workstreamId: string;
  name: string;
  extendedEvents: boolean;
  toolProjectId: string | null;
  createdAt: Date;
}): ConfigurationView {
  return {
    id: row.id,
    workstream_id: row.workstreamId,
    name: row.name,
    extended_events: row.extendedEvents,
    tool_project_id: row.toolProjectId,
    created_at: row.createdAt.toISOString(),
  };
}
