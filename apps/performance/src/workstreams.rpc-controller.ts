import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { IdempotentPattern } from '@workline/messaging';
import { RpcPattern, validateContract, WorkstreamCreateRequest, WorkstreamGetRequest, type WorkstreamView } from '@workline/contracts';
import { WorkstreamsService } from '@workline/performance';

@Controller()
export class WorkstreamsRpcController {
  constructor(private readonly workstreams: WorkstreamsService) {}

  @MessagePattern(RpcPattern.WorkstreamCreate)
  create(@Payload() payload: unknown): Promise<WorkstreamView> {
    return this.workstreams.create(validateContract(WorkstreamCreateRequest, payload));
  }

  @IdempotentPattern(RpcPattern.WorkstreamGet)
  get(@Payload() payload: unknown): Promise<WorkstreamView> {
    return this.workstreams.get(validateContract(WorkstreamGetRequest, payload).workstream_id);
  }
}
