import { Controller, Get, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import { RpcPattern, type RunCreateRequest, type RunGetRequest, ServiceName } from '@workline/contracts';
import { KafkaRpcClient } from '@workline/kafka';
import { BasicAuthGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import { RawJsonBody } from './raw-body';

/** Platform API v3 (deprecated, docs/platform-api.md): batches are v4 runs presented with v3 names. */
@Controller('v3')
@UseGuards(BasicAuthGuard)
export class PlatformV3Controller {
  constructor(private readonly rpc: KafkaRpcClient) {}

  @Post('tasks')
  @HttpCode(HttpStatus.OK)
  create(@CurrentPrincipal() caller: PrincipalOf<'account'>, @RawJsonBody() body: unknown): Promise<unknown> {
    const request: RunCreateRequest = { account_id: caller.accountId, api: 'v3', body };
    return this.rpc.request(ServiceName.PlatformRuns, RpcPattern.RunCreate, request);
  }

  @Get('tasks/:taskId')
  get(@CurrentPrincipal() caller: PrincipalOf<'account'>, @Param('taskId') taskId: string): Promise<unknown> {
    const request: RunGetRequest = { account_id: caller.accountId, api: 'v3', run_id: taskId };
    return this.rpc.request(ServiceName.PlatformRuns, RpcPattern.RunGet, request);
  }
}
