import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { LineCreateRequest, RpcPattern, validateContract, type LineView } from '@workline/contracts';
import { LinesService } from '@workline/platform-runs';

@Controller()
export class LinesRpcController {
  constructor(private readonly lines: LinesService) {}

  @MessagePattern(RpcPattern.LineCreate)
  create(@Payload() payload: unknown): Promise<LineView> {
    return this.lines.create(validateContract(LineCreateRequest, payload));
  }
}
