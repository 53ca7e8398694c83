import { Controller } from '@nestjs/common';
import { Ctx, MessagePattern, Payload } from '@nestjs/microservices';
import {
  BucketCreateRequest,
  type BucketView,
  type MediaGrantCreateReply,
  MediaGrantCreateRequest,
  type MediaLocation,
  RpcPattern,
  type TaskCreateReply,
  TaskCreateRequest,
  TaskGetRequest,
  TaskListRequest,
  type TaskPage,
  TaskMediaLocateRequest,
  type TaskView,
  validateContract,
} from '@workline/contracts';
import { IdempotentPattern, type KafkaMessageContext } from '@workline/messaging';
import { BucketsService, MediaGrantsService, TasksService } from '@workline/oversight';

@Controller()
export class TasksRpcController {
  constructor(
    private readonly grants: MediaGrantsService,
    private readonly buckets: BucketsService,
    private readonly tasks: TasksService,
  ) {}

  @MessagePattern(RpcPattern.MediaGrantCreate)
  createGrant(@Payload() payload: unknown): Promise<MediaGrantCreateReply> {
    return this.grants.create(validateContract(MediaGrantCreateRequest, payload));
  }

  @MessagePattern(RpcPattern.BucketCreate)
  createBucket(@Payload() payload: unknown): Promise<BucketView> {
    return this.buckets.create(validateContract(BucketCreateRequest, payload));
  }

  @IdempotentPattern(RpcPattern.TaskCreate)
  createTask(@Payload() payload: unknown, @Ctx() context: KafkaMessageContext): Promise<TaskCreateReply> {
    return this.tasks.create(validateContract(TaskCreateRequest, payload), context.meta.correlationId);
  }

  @IdempotentPattern(RpcPattern.TaskGet)
  getTask(@Payload() payload: unknown): Promise<TaskView> {
    return this.tasks.get(validateContract(TaskGetRequest, payload));
  }

  @IdempotentPattern(RpcPattern.TaskList)
  listTasks(@Payload() payload: unknown): Promise<TaskPage> {
    return this.tasks.list(validateContract(TaskListRequest, payload));
  }

  @IdempotentPattern(RpcPattern.TaskMediaLocate)
  locateMedia(@Payload() payload: unknown): Promise<MediaLocation> {
    return this.tasks.locateMedia(validateContract(TaskMediaLocateRequest, payload));
  }
}
