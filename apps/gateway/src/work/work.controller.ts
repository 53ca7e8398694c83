import { Body, Controller, HttpCode, HttpStatus, Logger, Param, Post, Res, UseGuards } from '@nestjs/common';
import {
  type AssignmentActionReply,
  type AssignmentActionRequest,
  type AssignmentKind,
  assignmentKindOf,
  type AssignmentNextRequest,
  DomainError,
  errorMessage,
  FollowUpNextDto,
  NextAssignmentDto,
  RpcPattern,
  ServiceName,
  validateContract,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import type { FastifyReply } from 'fastify';
import { WorkerGuard } from '../auth/guards';
import { CurrentPrincipal, type PrincipalOf } from '../auth/principal';
import {
  AssignmentOutcomeAnswer,
  CompleteTaskAssignmentDto,
  CompleteUnitAssignmentDto,
  FlagAssignmentDto,
  TaskAssignmentAnswer,
  UnitAssignmentAnswer,
} from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** Which service leases each kind of work, and under which patterns. */
const ROUTES: Record<AssignmentKind, { service: ServiceName; next: RpcPattern; complete: RpcPattern; flag: RpcPattern }> = {
  unit: {
    service: ServiceName.PlatformRuns,
    next: RpcPattern.UnitAssignmentNext,
    complete: RpcPattern.UnitAssignmentComplete,
    flag: RpcPattern.UnitAssignmentFlag,
  },
  task: {
    service: ServiceName.Oversight,
    next: RpcPattern.TaskAssignmentNext,
    complete: RpcPattern.TaskAssignmentComplete,
    flag: RpcPattern.TaskAssignmentFlag,
  },
};

/**
 * Work API (docs/work-api.md): a worker leases the next unit or task, then completes or flags it.
 * The owning service validates the complete/flag bodies, which differ by kind.
 */
@Controller('workforce/v1/assignments')
@ApiArea('work', 'worker')
@UseGuards(WorkerGuard)
export class WorkController {
  private readonly logger = new Logger(WorkController.name);

  constructor(private readonly rpc: KafkaRpcClient) {}

  @Post('next')
  @ApiDoc({
    summary: 'Lease the next unit or task',
    doc: 'docs/work-api.md',
    body: NextAssignmentDto,
    ok: [200, 'The assignment', { oneOf: [UnitAssignmentAnswer, TaskAssignmentAnswer] }],
    alsoOk: [[204, 'Nothing to do']],
    errors: [400, 413, 415, 422],
  })
  async next(
    @CurrentPrincipal() worker: PrincipalOf<'worker'>,
    @Body() body: NextAssignmentDto,
    @Res() reply: FastifyReply,
  ): Promise<void> {
    const assignment = await this.lease(worker, body);
    await (assignment ? reply.code(HttpStatus.OK).send(assignment) : reply.code(HttpStatus.NO_CONTENT).send());
  }

  @Post(':id/complete')
  @ApiDoc({
    summary: 'Complete an assignment',
    doc: 'docs/work-api.md',
    body: { oneOf: [CompleteUnitAssignmentDto, CompleteTaskAssignmentDto] },
    ok: [200, 'Completed', AssignmentOutcomeAnswer],
    errors: [400, 404, 409, 413, 415, 422],
  })
  @HttpCode(HttpStatus.OK)
  complete(@CurrentPrincipal() worker: PrincipalOf<'worker'>, @Param('id') assignmentId: string, @Body() body: unknown): Promise<unknown> {
    return this.act('complete', worker, assignmentId, body);
  }

  @Post(':id/flag')
  @ApiDoc({
    summary: 'Flag an assignment',
    doc: 'docs/work-api.md',
    body: FlagAssignmentDto,
    ok: [200, 'Flagged', AssignmentOutcomeAnswer],
    errors: [400, 404, 409, 413, 415, 422],
  })
  @HttpCode(HttpStatus.OK)
  flag(@CurrentPrincipal() worker: PrincipalOf<'worker'>, @Param('id') assignmentId: string, @Body() body: unknown): Promise<unknown> {
    return this.act('flag', worker, assignmentId, body);
  }

  private lease(worker: PrincipalOf<'worker'>, body: NextAssignmentDto): Promise<object | null> {
    const route = ROUTES[body.kind];
    const request: AssignmentNextRequest = { worker_id: worker.workerId, ...(body.line_id ? { line_id: body.line_id } : {}) };
    return this.rpc.request<object | null>(route.service, route.next, request);
  }

  /**
   * Complete or flag; with `next` in the body, the next assignment comes back in the same answer
   * (docs/work-api.md). `next` is checked before anything is stored, and taken out of the body the owning
   * service validates. Next of the same kind as a unit travels with the complete in one request.
   */
  private async act(action: 'complete' | 'flag', worker: PrincipalOf<'worker'>, assignmentId: string, body: unknown): Promise<unknown> {
    const { rest, next } = splitFollowUp(body);
    const kind = assignmentKindOf(assignmentId);
    if (!kind) throw DomainError.notFound(`assignment ${assignmentId} not found`);
    const route = ROUTES[kind];
    const request: AssignmentActionRequest = { worker_id: worker.workerId, assignment_id: assignmentId, body: rest ?? {} };
    if (next && kind === 'unit' && next.kind === 'unit') request.next = next.line_id ? { line_id: next.line_id } : {};
    const result = await this.rpc.request<AssignmentActionReply>(route.service, route[action], request);
    if (!next || request.next) return result;
    let following: object | null = null;
    try {
      following = await this.lease(worker, next);
    } catch (error) {
      // The complete or flag is stored: its answer stands, and the worker asks `next` again.
      this.logger.warn(`${action} of ${assignmentId} stored, but no next ${next.kind} could be leased: ${errorMessage(error)}`);
    }
    return { ...result, next: following };
  }
}

/** Takes the optional `next` out of a complete or flag body, validated (422 naming next.*). */
function splitFollowUp(body: unknown): { rest: unknown; next?: NextAssignmentDto } {
  if (typeof body !== 'object' || body === null || Array.isArray(body) || !Object.hasOwn(body, 'next')) return { rest: body };
  const { next, ...rest } = body as Record<string, unknown>;
  return { rest, next: validateContract(FollowUpNextDto, { next }).next };
}
