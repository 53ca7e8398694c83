import { Inject, Injectable } from '@nestjs/common';
import {
  DomainError,
  ErrorCode,
  type PerformanceCaller,
  type UseCaseDto,
  type WorkstreamCreatedEvent,
  type WorkstreamCreateRequest,
  type WorkstreamView,
} from '@workline/contracts';
import { ImmutableRowCache, type PublicSurface } from '@workline/db';
import { randomUUID } from 'node:crypto';
import type { WorkstreamConfig } from './record-rules';
import { type WorkstreamRow, WorkstreamsRepository } from './workstreams.repository';

/** Defaults of the quality-control settings of a workstream (docs/performance-api.md). */
export const QC_DEFAULTS = { qc_score_threshold: 0.5, qc_sample_rate: 0.05 } as const;

/** Workstreams and their use cases: the configuration that performance records are validated against. */
@Injectable()
export class WorkstreamsService {
  /** Workstreams never change once created and are never deleted: their configuration is cached. */
  private readonly configs = new ImmutableRowCache<WorkstreamConfig>();

  constructor(@Inject(WorkstreamsRepository) private readonly workstreams: PublicSurface<WorkstreamsRepository>) {}

  async create(request: WorkstreamCreateRequest): Promise<WorkstreamView> {
    const ids = request.use_cases.map((u) => u.id);
    const repeated = ids.find((id, i) => ids.indexOf(id) !== i);
    if (repeated) {
      throw new DomainError(ErrorCode.Validation, `Invalid request: use case "${repeated}" is listed twice`, [
        { field: 'use_cases', message: `use case "${repeated}" is listed twice` },
      ]);
    }
    const useCases: UseCaseDto[] = request.use_cases.map((u) => ({ id: u.id, task_definition_ids: [...new Set(u.task_definition_ids)] }));
    const created = await this.workstreams.insert(
      {
        id: randomUUID(),
        accountId: request.account_id,
        name: request.name,
        useCases,
        qcScoreThreshold: request.qc_score_threshold ?? QC_DEFAULTS.qc_score_threshold,
        qcSampleRate: request.qc_sample_rate ?? QC_DEFAULTS.qc_sample_rate,
      },
      (row): WorkstreamCreatedEvent => ({
        workstream_id: row.id,
        account_id: row.accountId,
        name: row.name,
        use_cases: useCases,
        created_at: row.createdAt.toISOString(),
      }),
    );
    return toView(created);
  }

  async get(workstreamId: string): Promise<WorkstreamView> {
    const row = await this.workstreams.find(workstreamId);
    if (!row) throw notFound(workstreamId);
    return toView(row);
  }

  /**
   * The workstream a caller may report for. A workstream key works for its workstream only (403 for
   * another, known or not: a key learns nothing about other workstreams); a project-level key (no
   * workstream) for every workstream of its account; an unknown workstream is 404.
   */
  async authorize(caller: PerformanceCaller, workstreamId: string): Promise<WorkstreamConfig> {
    if (caller.workstream_id && caller.workstream_id !== workstreamId) throw forbidden(workstreamId);
    const workstream = await this.config(workstreamId);
    if (workstream.account_id !== caller.account_id) throw forbidden(workstreamId);
    return workstream;
  }

  async config(workstreamId: string): Promise<WorkstreamConfig> {
    const config = await this.configs.get(workstreamId, async () => {
      const row = await this.workstreams.find(workstreamId);
      return row && configOf(toView(row));
    });
    if (!config) throw notFound(workstreamId);
    return config;
  }
}

const configOf = (view: WorkstreamView): WorkstreamConfig => ({
  id: view.id,
  account_id: view.account_id,
  use_cases: view.use_cases,
  qc_score_threshold: view.qc_score_threshold,
  qc_sample_rate: view.qc_sample_rate,
});

const notFound = (workstreamId: string) => DomainError.notFound(`workstream ${workstreamId} not found`);

const forbidden = (workstreamId: string) =>
  new DomainError(ErrorCode.Forbidden, `Forbidden: this API key is not valid for workstream ${workstreamId}`);

function toView(row: WorkstreamRow): WorkstreamView {
  return {
    id: row.id,
    account_id: row.accountId,
    name: row.name,
    use_cases: row.useCases as UseCaseDto[],
    qc_score_threshold: row.qcScoreThreshold,
    qc_sample_rate: row.qcSampleRate,
    created_at: row.createdAt.toISOString(),
  };
}
