import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import {
  type AssignmentActionReply,
  type AssignmentActionRequest,
  type AssignmentNextRequest,
  RpcPattern,
  type UnitAssignmentView,
} from '@workline/contracts';
import { UnitWorkService } from '@workline/platform-runs';

/** Work API for kind "unit" (docs/work-api.md); the gateway has authenticated the worker. */
@Controller()
export class UnitWorkRpcController {
  constructor(private readonly work: UnitWorkService) {}

  @MessagePattern(RpcPattern.UnitAssignmentNext)
  next(@Payload() payload: AssignmentNextRequest): Promise<UnitAssignmentView | null> {
    return this.work.next(payload);
  }

  @MessagePattern(RpcPattern.UnitAssignmentComplete)
  complete(@Payload() payload: AssignmentActionRequest): Promise<AssignmentActionReply> {
    return this.work.complete(payload);
  }

  @MessagePattern(RpcPattern.UnitAssignmentFlag)
  flag(@Payload() payload: AssignmentActionRequest): Promise<AssignmentActionReply> {
    return this.work.flag(payload);
  }
}
