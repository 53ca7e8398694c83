import { Body, Controller, Get, HttpCode, HttpStatus, Param, Put, UseGuards } from '@nestjs/common';
import { SetTaskQuotaDto, TaskQuotaAnswer } from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { TaskQuota, TaskQuotaLimits } from '@workline/task-quota';
import { AdminTokenGuard } from '../auth/guards';
import { ApiArea, ApiDoc } from '../openapi/api-docs';
import { findWorkstream } from '../performance/workstream-lookup';

/** Admin API: a workstream's task-creation quota, which support raises (spec "Limits": "can be raised through support"). */
@Controller('admin/v1/workstreams/:workstream_id/task-quota')
@ApiArea('admin', 'admin')
@UseGuards(AdminTokenGuard)
export class TaskQuotaAdminController {
  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly quota: TaskQuota,
    private readonly limits: TaskQuotaLimits,
  ) {}

  @Get()
  @ApiDoc({
    summary: "Read a workstream's task-creation quota: limits in force and use in the current windows",
    doc: 'docs/oversight-api.md',
    ok: [200, 'The quota', TaskQuotaAnswer],
    errors: [404],
  })
  async read(@Param('workstream_id') workstreamId: string): Promise<TaskQuotaAnswer> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    return this.quota.answer(workstream.id, await this.limits.get(workstream.id));
  }

  @Put()
  @ApiDoc({
    summary: "Set a workstream's task-creation limits (null or left out: the default); in force on every gateway when answered",
    doc: 'docs/oversight-api.md',
    body: SetTaskQuotaDto,
    ok: [200, 'The quota', TaskQuotaAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.OK)
  async set(@Param('workstream_id') workstreamId: string, @Body() body: SetTaskQuotaDto): Promise<TaskQuotaAnswer> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    const limits = await this.limits.set(workstream.id, { day: body.day ?? null, week: body.week ?? null, month: body.month ?? null });
    return this.quota.answer(workstream.id, limits);
  }
}
