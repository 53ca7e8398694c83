import { Controller, Get, HttpCode, HttpStatus, Inject, Param, Post, Res, type StreamableFile, UseGuards } from '@nestjs/common';
import type { BlobStore } from '@workline/blob-store';
import type { RunGetRequest } from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { BasicAuthGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import type { FastifyReply } from 'fastify';
import { IdempotencyKey } from '../http/idempotency';
import { createRun } from './create-run';
import { RawJsonBody } from './raw-body';
import { CreateV3TaskBody, V3, V3TaskAnswer, V3TaskCreatedAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';
import { PLATFORM_BLOB_STORE, sendRun } from './run-reply';

/** Platform API v3 (deprecated, docs/platform-api.md): batches are v4 runs presented with v3 names. */
@Controller('v3')
@ApiArea('platform v3', 'basic')
@UseGuards(BasicAuthGuard)
export class PlatformV3Controller {
  constructor(
    private readonly rpc: KafkaRpcClient,
    @Inject(PLATFORM_BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Post('tasks')
  @ApiDoc({
    summary: 'Create a task (deprecated: use POST /v4/runs)',
    doc: 'docs/platform-api.md',
    body: CreateV3TaskBody,
    ok: [200, 'The task', V3TaskCreatedAnswer],
    errors: [400, 410],
    idempotent: true,
  })
  @HttpCode(HttpStatus.OK)
  create(
    @CurrentPrincipal() caller: PrincipalOf<'account'>,
    @RawJsonBody() body: string,
    @IdempotencyKey(V3.DataInvalid) key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return createRun(this.rpc, reply, {
      account_id: caller.accountId,
      api: 'v3',
      body_json: body,
      ...(key !== undefined ? { idempotency_key: key } : {}),
    });
  }

  @Get('tasks/:task_id')
  @ApiDoc({
    summary: 'Read a task (deprecated: use GET /v4/runs/{id})',
    doc: 'docs/platform-api.md',
    ok: [200, 'The task', V3TaskAnswer],
    errors: [400, 404, 410],
  })
  get(
    @CurrentPrincipal() caller: PrincipalOf<'account'>,
    @Param('task_id') taskId: string,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | StreamableFile> {
    const request: RunGetRequest = { account_id: caller.accountId, api: 'v3', run_id: taskId };
    return sendRun(this.rpc, this.blobs, reply, request);
  }
}
