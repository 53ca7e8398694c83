import { Controller } from '@nestjs/common';
import { MessagePattern, Payload } from '@nestjs/microservices';
import { type AssignmentActionRequest, type AssignmentNextRequest, RpcPattern, type TaskAssignmentView } from '@workline/contracts';
import { AssignmentsService } from '@workline/oversight';

/** Work API for tasks; the gateway routes `next` with kind "task" and `asgt_` assignment ids here. */
@Controller()
export class AssignmentsRpcController {
  constructor(private readonly assignments: AssignmentsService) {}

  @MessagePattern(RpcPattern.TaskAssignmentNext)
  next(@Payload() payload: AssignmentNextRequest): Promise<TaskAssignmentView | null> {
    return this.assignments.next(payload);
  }

  @MessagePattern(RpcPattern.TaskAssignmentComplete)
  complete(@Payload() payload: AssignmentActionRequest): Promise<object> {
    return this.assignments.complete(payload);
  }

  @MessagePattern(RpcPattern.TaskAssignmentFlag)
  flag(@Payload() payload: AssignmentActionRequest): Promise<object> {
    return this.assignments.flag(payload);
  }
}
