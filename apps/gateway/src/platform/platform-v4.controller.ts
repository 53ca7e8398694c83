import {
  Controller,
  Delete,
  Get,
  HttpCode,
  HttpStatus,
  Inject,
  Param,
  Post,
  Query,
  Res,
  type StreamableFile,
  UseGuards,
} from '@nestjs/common';
import type { BlobStore } from '@workline/blob-store';
import {
  DomainError,
  ErrorCode,
  type LineListRequest,
  RpcPattern,
  type RunAbortRequest,
  type RunGetRequest,
  ServiceName,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { BasicAuthGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import type { FastifyReply } from 'fastify';
import { IdempotencyKey } from '../http/idempotency';
import { createRun } from './create-run';
import { RawJsonBody } from './raw-body';
import { CreateRunBody, LineAnswer, MessageAnswer, RunAnswer, RunCreatedAnswer, RunUnitsQuery } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';
import { PLATFORM_BLOB_STORE, sendRun } from './run-reply';

/** Largest page of the unit pagination extension (also the most units a run holds). */
const MAX_UNITS_LIMIT = 10_000;

function pageParam(query: Record<string, unknown>, name: string, min: number): number | undefined {
  const raw = query[name];
  if (raw === undefined) return undefined;
  const value = typeof raw === 'string' && /^\d{1,9}$/.test(raw) ? Number(raw) : NaN;
  if (!(value >= min && value <= (name === 'units_limit' ? MAX_UNITS_LIMIT : Number.MAX_SAFE_INTEGER))) {
    const expected = name === 'units_limit' ? `an integer from 1 to ${MAX_UNITS_LIMIT}` : 'an integer of 0 or more';
    throw new DomainError(ErrorCode.Validation, `Invalid request: ${name} is not of the expected type (${expected})`, [
      { field: name, message: `${name} is not of the expected type (${expected})` },
    ]);
  }
  return value;
}

/** Platform API v4 (docs/platform-api.md): production lines and runs, HTTP Basic. */
@Controller('v4')
@ApiArea('platform v4', 'basic')
@UseGuards(BasicAuthGuard)
export class PlatformV4Controller {
  constructor(
    private readonly rpc: KafkaRpcClient,
    @Inject(PLATFORM_BLOB_STORE) private readonly blobs: BlobStore,
  ) {}

  @Get('lines')
  @ApiDoc({ summary: "List the account's lines", doc: 'docs/platform-api.md', ok: [200, 'The lines', [LineAnswer]] })
  lines(@CurrentPrincipal() caller: PrincipalOf<'account'>): Promise<unknown> {
    const request: LineListRequest = { account_id: caller.accountId };
    return this.rpc.request(ServiceName.PlatformRuns, RpcPattern.LineList, request);
  }

  /** Lines are provisioned by Workline (admin API): a client may list them, not create them. */
  @Post('lines')
  @ApiDoc({
    summary: 'Create a line (lines are provisioned by Workline: always 403)',
    doc: 'docs/platform-api.md',
    // Any JSON object is answered 403; a client states a line as the admin API creates one, by its name.
    body: { 'application/json': { type: 'object', properties: { name: { type: 'string' } } } },
    ok: [201, 'Never: lines are provisioned by Workline (403)'],
    errors: [400, 403, 413, 415, 422],
  })
  createLine(): never {
    throw new DomainError(ErrorCode.Forbidden, 'Forbidden');
  }

  @Post('runs')
  @ApiDoc({
    summary: 'Create a run',
    doc: 'docs/platform-api.md',
    body: CreateRunBody,
    ok: [201, 'The run', RunCreatedAnswer],
    errors: [400, 404, 413, 415, 422],
    idempotent: true,
  })
  @HttpCode(HttpStatus.CREATED)
  create(
    @CurrentPrincipal() caller: PrincipalOf<'account'>,
    @RawJsonBody() body: string,
    @IdempotencyKey() key: string | undefined,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<object> {
    return createRun(this.rpc, reply, {
      account_id: caller.accountId,
      api: 'v4',
      body_json: body,
      ...(key !== undefined ? { idempotency_key: key } : {}),
    });
  }

  @Get('runs/:id')
  @ApiDoc({
    summary: 'Read a run with a page of its units',
    doc: 'docs/platform-api.md',
    query: RunUnitsQuery,
    ok: [200, 'The run', RunAnswer],
    errors: [404, 422],
  })
  get(
    @CurrentPrincipal() caller: PrincipalOf<'account'>,
    @Param('id') id: string,
    @Query() query: Record<string, unknown>,
    @Res({ passthrough: true }) reply: FastifyReply,
  ): Promise<string | StreamableFile> {
    const request: RunGetRequest = { account_id: caller.accountId, api: 'v4', run_id: id };
    const offset = pageParam(query, 'units_offset', 0);
    const limit = pageParam(query, 'units_limit', 1);
    if (offset !== undefined) request.units_offset = offset;
    if (limit !== undefined) request.units_limit = limit;
    return sendRun(this.rpc, this.blobs, reply, request);
  }

  /** Runs are kept: a client may read and abort its runs, not delete them (403); others' runs are 404. */
  @Delete('runs/:id')
  @ApiDoc({
    summary: "Runs cannot be deleted (403; 404 for another account's run)",
    doc: 'docs/platform-api.md',
    ok: [200, 'Never: runs are kept (403)'],
    errors: [403, 404],
  })
  async remove(@CurrentPrincipal() caller: PrincipalOf<'account'>, @Param('id') id: string): Promise<never> {
    // One unit at most: the answer is always small enough to travel inline (JsonReply).
    const request: RunGetRequest = { account_id: caller.accountId, api: 'v4', run_id: id, units_offset: 0, units_limit: 1 };
    await this.rpc.request(ServiceName.PlatformRuns, RpcPattern.RunGet, request);
    throw new DomainError(ErrorCode.Forbidden, 'Forbidden');
  }

  @Post('runs/:id/abort')
  @ApiDoc({
    summary: 'Abort a run',
    doc: 'docs/platform-api.md',
    ok: [202, 'The abort is under way', MessageAnswer],
    errors: [404, 405, 409],
  })
  @HttpCode(HttpStatus.ACCEPTED)
  abort(@CurrentPrincipal() caller: PrincipalOf<'account'>, @Param('id') id: string): Promise<unknown> {
    const request: RunAbortRequest = { account_id: caller.accountId, run_id: id };
    return this.rpc.request(ServiceName.PlatformRuns, RpcPattern.RunAbort, request);
  }
}
