import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Post, Query, Res, UseGuards } from '@nestjs/common';
import {
  type ConfigurationView,
  CreateAccountDto,
  CreateApiKeyDto,
  CreateConfigurationDto,
  CreateLineDto,
  CreateWorkerDto,
  CreateWorkstreamDto,
  type LineView,
  ListApiKeysQuery,
  ListRunsQuery,
  ListTasksQuery,
  ReportQueryDto,
  RotateApiKeyDto,
  RpcPattern,
  ServiceName,
  type RunPage,
  type TaskPage,
  type WorkstreamView,
} from '@workline/contracts';
import { type ApiKeyView, IdentityService, type NewAccount } from '@workline/identity';
import { KafkaRpcClient } from '@workline/messaging';
import type { FastifyReply } from 'fastify';
import { AdminTokenGuard } from '../auth/guards';
import { IdempotencyKey, markReplayed } from '../http/idempotency';
import { sendReport } from '../performance/report-response';
import { findWorkstream } from '../performance/workstream-lookup';
import {
  ApiKeyAnswer,
  ConfigurationAnswer,
  CredentialsAnswer,
  LineAnswer,
  NewAccountAnswer,
  NewApiKeyAnswer,
  NewWorkerAnswer,
  QualityReportAnswer,
  RunPageAnswer,
  TaskPageAnswer,
  ThroughputReportAnswer,
  WorkstreamAnswer,
} from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';
import { reportContent } from '../openapi/examples';

/** An API key takes no settings yet: the body is `{}`. */
const EMPTY_BODY = { 'application/json': { type: 'object', additionalProperties: false } } as const;

/** Admin API (docs/admin-api.md): provisioning of accounts, lines, workstreams, keys, configurations, workers. */
@Controller('admin/v1')
@ApiArea('admin', 'admin')
@UseGuards(AdminTokenGuard)
export class AdminController {
  constructor(
    private readonly identity: IdentityService,
    private readonly rpc: KafkaRpcClient,
  ) {}

  @Post('accounts')
  @ApiDoc({
    summary: 'Create an account (answers its Basic credentials once)',
    doc: 'docs/admin-api.md',
    body: CreateAccountDto,
    ok: [201, 'The account', NewAccountAnswer],
    errors: [400, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  createAccount(@Body() body: CreateAccountDto): Promise<NewAccount> {
    return this.identity.createAccount(body.name);
  }

  @Post('accounts/:account_id/lines')
  @ApiDoc({
    summary: 'Create a line for an account',
    doc: 'docs/admin-api.md',
    body: CreateLineDto,
    ok: [201, 'The line', LineAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async createLine(@Param('account_id') accountId: string, @Body() body: CreateLineDto): Promise<LineView> {
    await this.identity.requireAccount(accountId);
    return this.rpc.request<LineView>(ServiceName.PlatformRuns, RpcPattern.LineCreate, { account_id: accountId, name: body.name });
  }

  @Post('workstreams')
  @ApiDoc({
    summary: 'Create a workstream',
    doc: 'docs/admin-api.md',
    body: CreateWorkstreamDto,
    ok: [201, 'The workstream', WorkstreamAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async createWorkstream(@Body() body: CreateWorkstreamDto): Promise<WorkstreamView> {
    await this.identity.requireAccount(body.account_id);
    return this.rpc.request<WorkstreamView>(ServiceName.Performance, RpcPattern.WorkstreamCreate, body);
  }

  @Post('workstreams/:workstream_id/api-keys')
  @ApiDoc({
    summary: 'Issue a workstream API key',
    doc: 'docs/admin-api.md',
    body: EMPTY_BODY,
    ok: [201, 'The key (secret shown once)', NewApiKeyAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async createApiKey(@Param('workstream_id') workstreamId: string, @Body() _body: CreateApiKeyDto): Promise<{ id: string; key: string }> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    return this.identity.createApiKey(workstream.account_id, workstream.id);
  }

  @Post('workstreams/:workstream_id/configurations')
  @ApiDoc({
    summary: 'Set a workstream configuration',
    doc: 'docs/performance-api.md',
    body: CreateConfigurationDto,
    ok: [201, 'The configuration', ConfigurationAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async createConfiguration(
    @Param('workstream_id') workstreamId: string,
    @Body() body: CreateConfigurationDto,
  ): Promise<ConfigurationView> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    return this.rpc.request<ConfigurationView>(ServiceName.Oversight, RpcPattern.ConfigurationCreate, {
      ...body,
      workstream_id: workstream.id,
      account_id: workstream.account_id,
    });
  }

  /** A project-level key: valid for every workstream of the account (and their configurations and tasks). */
  @Post('accounts/:account_id/api-keys')
  @ApiDoc({
    summary: 'Issue a project-level API key',
    doc: 'docs/admin-api.md',
    body: EMPTY_BODY,
    ok: [201, 'The key (secret shown once)', NewApiKeyAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async createProjectApiKey(@Param('account_id') accountId: string, @Body() _body: CreateApiKeyDto): Promise<{ id: string; key: string }> {
    await this.identity.requireAccount(accountId);
    return this.identity.createApiKey(accountId, null);
  }

  @Get('api-keys')
  @ApiDoc({
    summary: 'List API keys (no secrets)',
    doc: 'docs/admin-api.md',
    query: ListApiKeysQuery,
    ok: [200, 'The keys', [ApiKeyAnswer]],
    errors: [422],
  })
  listApiKeys(@Query() query: ListApiKeysQuery): Promise<ApiKeyView[]> {
    return this.identity.listApiKeys({ accountId: query.account_id, workstreamId: query.workstream_id });
  }

  @Delete('api-keys/:key_id')
  @ApiDoc({ summary: 'Revoke an API key', doc: 'docs/admin-api.md', ok: [204, 'Revoked'], errors: [404] })
  @HttpCode(HttpStatus.NO_CONTENT)
  revokeApiKey(@Param('key_id') keyId: string): Promise<void> {
    return this.identity.revokeApiKey(keyId);
  }

  @Post('api-keys/:key_id/rotate')
  @ApiDoc({
    summary: 'Rotate an API key',
    doc: 'docs/admin-api.md',
    body: RotateApiKeyDto,
    ok: [201, 'The new key', NewApiKeyAnswer],
    errors: [404, 409, 422],
    idempotent: true,
  })
  @HttpCode(HttpStatus.CREATED)
  async rotateApiKey(
    @Param('key_id') keyId: string,
    @Body() body: RotateApiKeyDto,
    @IdempotencyKey() key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<{ id: string; key: string }> {
    const rotated = await this.identity.rotateApiKey(keyId, body.overlap_seconds, key);
    markReplayed(reply, rotated.replayed);
    return { id: rotated.id, key: rotated.key };
  }

  /** New Basic password for the platform API; the old one stops at once. */
  @Post('accounts/:account_id/credentials/reset')
  @ApiDoc({
    summary: "Reset an account's password",
    doc: 'docs/admin-api.md',
    ok: [200, 'The new credentials', CredentialsAnswer],
    errors: [404],
  })
  @HttpCode(HttpStatus.OK)
  resetCredentials(@Param('account_id') accountId: string): Promise<{ id: string; username: string; password: string }> {
    return this.identity.resetPassword(accountId);
  }

  @Post('workers')
  @ApiDoc({
    summary: 'Register a worker (answers its token once)',
    doc: 'docs/admin-api.md',
    body: CreateWorkerDto,
    ok: [201, 'The worker', NewWorkerAnswer],
    // 409: a worker with that email exists.
    errors: [400, 409, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  createWorker(@Body() body: CreateWorkerDto): Promise<{ id: string; token: string }> {
    return this.identity.createWorker(body.email, body.name);
  }

  /** Every oversight task, optionally of one workstream and in one state, newest first (docs/admin-api.md). */
  @Get('tasks')
  @ApiDoc({
    summary: 'List oversight tasks of every account, newest first (filter by workstream and state)',
    doc: 'docs/admin-api.md',
    query: ListTasksQuery,
    ok: [200, 'A page of tasks', TaskPageAnswer],
    errors: [422],
  })
  listTasks(@Query() query: ListTasksQuery): Promise<TaskPage> {
    return this.rpc.request<TaskPage>(ServiceName.Oversight, RpcPattern.TaskList, { ...query });
  }

  /** Every production run (v4 and v3), optionally of one account or line and in one status, newest first (docs/admin-api.md). */
  @Get('runs')
  @ApiDoc({
    summary: 'List production runs of every account, newest first (filter by account, line and status)',
    doc: 'docs/admin-api.md',
    query: ListRunsQuery,
    ok: [200, 'A page of runs', RunPageAnswer],
    errors: [422],
  })
  listRuns(@Query() query: ListRunsQuery): Promise<RunPage> {
    return this.rpc.request<RunPage>(ServiceName.PlatformRuns, RpcPattern.RunList, { ...query });
  }

  /** The workstream API's quality report, for any workstream (the console's operator charts). */
  @Get('workstreams/:workstream_id/reports/quality')
  @ApiDoc({
    summary: 'Quality report of any workstream',
    doc: 'docs/admin-api.md',
    query: ReportQueryDto,
    ok: [200, 'The report (JSON, or CSV with format=csv)', reportContent(QualityReportAnswer)],
    errors: [404, 422],
  })
  qualityReport(
    @Param('workstream_id') workstreamId: string,
    @Query() query: ReportQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.report(RpcPattern.QualityReport, workstreamId, query, reply);
  }

  @Get('workstreams/:workstream_id/reports/throughput')
  @ApiDoc({
    summary: 'Throughput report of any workstream',
    doc: 'docs/admin-api.md',
    query: ReportQueryDto,
    ok: [200, 'The report (JSON, or CSV with format=csv)', reportContent(ThroughputReportAnswer)],
    errors: [404, 422],
  })
  throughputReport(
    @Param('workstream_id') workstreamId: string,
    @Query() query: ReportQueryDto,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<unknown> {
    return this.report(RpcPattern.ThroughputReport, workstreamId, query, reply);
  }

  /** Reports as the workstream's own account: the performance service applies the same rules as for its key. */
  private async report(
    pattern: RpcPattern.QualityReport | RpcPattern.ThroughputReport,
    workstreamId: string,
    query: ReportQueryDto,
    reply: FastifyReply,
  ): Promise<unknown> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    return sendReport(this.rpc, pattern, { account_id: workstream.account_id, workstream_id: workstream.id }, workstream.id, query, reply);
  }
}
