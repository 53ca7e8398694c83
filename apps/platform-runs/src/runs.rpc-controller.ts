import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  type JsonReply,
  type LineListRequest,
  RpcPattern,
  type RunAbortRequest,
  type RunCreateReply,
  type RunCreateRequest,
  type RunGetRequest,
  RunListRequest,
  type RunPage,
  validateContract,
} from '@workline/contracts';
import { IdempotentPattern, type KafkaMessageContext } from '@workline/messaging';
import { LinesService, RunsService } from '@workline/platform-runs';

/** Platform API v4 and v3 over request-reply; the gateway has authenticated the account. */
@Controller()
export class RunsRpcController {
  constructor(
    private readonly lines: LinesService,
    private readonly runs: RunsService,
  ) {}

  @IdempotentPattern(RpcPattern.LineList)
  listLines(@Payload() payload: LineListRequest): Promise<{ name: string; id: string }[]> {
    return this.lines.list(payload.account_id);
  }

  @IdempotentPattern(RpcPattern.RunCreate)
  create(@Payload() payload: RunCreateRequest, @Ctx() context: KafkaMessageContext): Promise<RunCreateReply> {
    return this.runs.create(payload, context.meta.correlationId);
  }

  @IdempotentPattern(RpcPattern.RunGet)
  get(@Payload() payload: RunGetRequest): Promise<JsonReply> {
    return this.runs.get(payload);
  }

  @IdempotentPattern(RpcPattern.RunList)
  list(@Payload() payload: unknown): Promise<RunPage> {
    return this.runs.list(validateContract(RunListRequest, payload));
  }

  @MessagePattern(RpcPattern.RunAbort)
  abort(@Payload() payload: RunAbortRequest): Promise<{ message: string }> {
    return this.runs.requestAbort(payload);
  }
}
