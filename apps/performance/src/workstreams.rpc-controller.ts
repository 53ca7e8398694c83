import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { RpcPattern, validateContract, WorkstreamCreateRequest, WorkstreamGetRequest, type WorkstreamView } from '@workline/contracts';
import { WorkstreamsService } from '@workline/performance';

@Controller()
export class WorkstreamsRpcController {
  constructor(private readonly workstreams: WorkstreamsService) {}

  @MessagePattern(RpcPattern.WorkstreamCreate)
  create(@Payload() payload: unknown): Promise<WorkstreamView> {
    return this.workstreams.create(validateContract(WorkstreamCreateRequest, payload));
  }

  @MessagePattern(RpcPattern.WorkstreamGet)
  get(@Payload() payload: unknown): Promise<WorkstreamView> {
    return this.workstreams.get(validateContract(WorkstreamGetRequest, payload).workstream_id);
  }
}
