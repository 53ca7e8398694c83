import { Body, Controller, Get, HttpCode, HttpStatus, Param, Post, Res, UseGuards } from '@nestjs/common';
import { CallbackUrlError, checkCallbackUrl } from '@workline/callback-url';
import {
  type ConfigurationGetRequest,
  type ConfigurationView,
  CreateMediaGrantDto,
  CreateTaskDto,
  DomainError,
  ErrorCode,
  type MediaGrantCreateReply,
  type MediaGrantCreateRequest,
  type MediaGrantView,
  mediaUploadPath,
  RpcPattern,
  ServiceName,
  type TaskCreatedView,
  type TaskCreateReply,
  type TaskCreateRequest,
  type TaskGetRequest,
  type TaskView,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { signedUrlExpiry, signPath, urlSigningKey } from '@workline/secrets';
import type { FastifyReply } from 'fastify';
import { ApiKeyGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import { GatewayEnv } from '../gateway.env';
import { IdempotencyKey, markReplayed } from '../http/idempotency';
import { OversightApiEnv } from './oversight-api.env';
import { TaskQuotaRider, UsesTaskQuota } from './task-quota-rider';
import { MediaGrantAnswer, TaskAnswer, TaskCreatedAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

type ApiKeyPrincipal = PrincipalOf<'api-key'>;

/** Oversight API (docs/oversight-api.md): media upload grants, tasks and task status, per workstream key. */
@Controller('v1')
@ApiArea('oversight', 'apiKey')
@UseGuards(ApiKeyGuard)
export class OversightController {
  private readonly signingKey: string;

  constructor(
    private readonly rpc: KafkaRpcClient,
    private readonly env: GatewayEnv,
    private readonly settings: OversightApiEnv,
    private readonly quota: TaskQuotaRider,
  ) {
    this.signingKey = urlSigningKey(env.secretsKey);
  }

  @Post('signed-url')
  @ApiDoc({
    summary: 'Get a presigned media upload URL',
    doc: 'docs/oversight-api.md',
    body: CreateMediaGrantDto,
    ok: [200, 'The upload URL', MediaGrantAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.OK)
  async createUploadGrant(@CurrentPrincipal() principal: ApiKeyPrincipal, @Body() body: CreateMediaGrantDto): Promise<MediaGrantView> {
    const workstreamId = await this.workstreamFor(principal, body.configuration_id);
    const expiresAt = signedUrlExpiry(this.settings.MEDIA_UPLOAD_URL_TTL_SECONDS);
    const request: MediaGrantCreateRequest = {
      workstream_id: workstreamId,
      account_id: principal.accountId,
      configuration_id: body.configuration_id,
      expires_at: expiresAt.toISOString(),
    };
    const { media_key } = await this.rpc.request<MediaGrantCreateReply>(ServiceName.Oversight, RpcPattern.MediaGrantCreate, request);
    return {
      media_upload_url: `${this.env.publicUrl}${signPath(this.signingKey, 'PUT', mediaUploadPath(media_key), expiresAt)}`,
      media_key,
      expires_at: expiresAt.toISOString(),
    };
  }

  @Post('tasks')
  @UsesTaskQuota()
  @ApiDoc({
    summary: 'Create an oversight task',
    doc: 'docs/oversight-api.md',
    body: CreateTaskDto,
    ok: [201, 'The task', TaskCreatedAnswer],
    errors: [400, 403, 404, 409, 413, 415, 422],
    idempotent: true,
  })
  @HttpCode(HttpStatus.CREATED)
  async createTask(
    @CurrentPrincipal() principal: ApiKeyPrincipal,
    @Body() body: CreateTaskDto,
    @IdempotencyKey() key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<TaskCreatedView> {
    // null is "no callback", as an absent callback_url (and as bucket_id: null is no bucket).
    if (body.callback_url !== undefined && body.callback_url !== null) {
      try {
        await checkCallbackUrl(body.callback_url, this.env.callbackPolicy);
      } catch (error) {
        if (!(error instanceof CallbackUrlError)) throw error;
        throw new DomainError(ErrorCode.Validation, `Invalid request: ${error.message}`, [
          { field: 'callback_url', message: error.message },
        ]);
      }
    }
    const workstreamId = await this.workstreamFor(principal, body.configuration_id);
    const request: TaskCreateRequest = {
      ...body,
      workstream_id: workstreamId,
      account_id: principal.accountId,
      sealed_api_key: principal.sealedKey,
      ...(key !== undefined ? { idempotency_key: key } : {}),
    };
    const reservation = await this.quota.claim(reply.request, workstreamId);
    if ('refused' in reservation) {
      // A retry of a task created earlier gets its answer even when the quota is used up since.
      const replay = key !== undefined ? await this.createOrReplay(reply, { ...request, replay_only: true }) : undefined;
      if (replay?.task_id !== undefined) return { task_id: replay.task_id };
      const { window, limit, resetsAt } = reservation.refused;
      throw DomainError.tooManyRequests(
        `Task quota exceeded: this workstream may create ${limit} tasks per ${window}; retry after ` +
          `${resetsAt.toISOString()} or ask support to raise the quota`,
        (resetsAt.getTime() - Date.now()) / 1000,
      );
    }
    let created: TaskCreateReply;
    try {
      created = await this.createOrReplay(reply, request);
    } catch (error) {
      // A refused creation does not count; an unanswered one might have happened, so it keeps counting.
      if (error instanceof DomainError && error.code !== ErrorCode.Unavailable) await reservation.release();
      throw error;
    }
    // A replay created nothing: the creation it repeats was counted already.
    if (created.replayed) await reservation.release();
    if (created.task_id === undefined) throw new Error('oversight answered a task creation without a task');
    return { task_id: created.task_id };
  }

  /** Creates the task, or finds the one created earlier under the same Idempotency-Key (marked as a replay). */
  private async createOrReplay(reply: FastifyReply, request: TaskCreateRequest): Promise<TaskCreateReply> {
    const created = await this.rpc.request<TaskCreateReply>(ServiceName.Oversight, RpcPattern.TaskCreate, request);
    markReplayed(reply, created.replayed);
    return created;
  }

  @Get('tasks/:id')
  @ApiDoc({ summary: 'Read an oversight task', doc: 'docs/oversight-api.md', ok: [200, 'The task', TaskAnswer], errors: [404] })
  getTask(@CurrentPrincipal() principal: ApiKeyPrincipal, @Param('id') taskId: string): Promise<TaskView> {
    const request: TaskGetRequest = {
      account_id: principal.accountId,
      ...(principal.workstreamId ? { workstream_id: principal.workstreamId } : {}),
      task_id: taskId,
    };
    return this.rpc.request<TaskView>(ServiceName.Oversight, RpcPattern.TaskGet, request);
  }

  /**
   * The workstream a request acts for: the key's own, or for a project-level key (valid for every
   * workstream of its account) the workstream of the configuration it names, which must be the account's.
   */
  private async workstreamFor(principal: ApiKeyPrincipal, configurationId: string): Promise<string> {
    if (principal.workstreamId) return principal.workstreamId;
    const request: ConfigurationGetRequest = { account_id: principal.accountId, configuration_id: configurationId };
    const configuration = await this.rpc.request<ConfigurationView>(ServiceName.Oversight, RpcPattern.ConfigurationGet, request);
    return configuration.workstream_id;
  }
}
