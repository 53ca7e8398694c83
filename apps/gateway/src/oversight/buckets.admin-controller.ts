import { Body, Controller, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import { type BucketCreateRequest, type BucketView, CreateBucketDto, RpcPattern, ServiceName, type WorkstreamView } from '@workline/contracts';
import { KafkaRpcClient } from '@workline/kafka';
import { AdminTokenGuard } from '../auth/guards';

/** Admin API: mount a workstream's own storage as a bucket that tasks may take images from. */
@Controller('admin/v1')
@UseGuards(AdminTokenGuard)
export class BucketsAdminController {
  constructor(private readonly rpc: KafkaRpcClient) {}

  @Post('workstreams/:workstreamId/buckets')
  @HttpCode(HttpStatus.CREATED)
  async create(@Param('workstreamId') workstreamId: string, @Body() body: CreateBucketDto): Promise<BucketView> {
    const workstream = await this.rpc.request<WorkstreamView>(ServiceName.Performance, RpcPattern.WorkstreamGet, { workstream_id: workstreamId });
    const request: BucketCreateRequest = { workstream_id: workstream.id, account_id: workstream.account_id, driver: body.driver, root: body.root };
    return this.rpc.request<BucketView>(ServiceName.Oversight, RpcPattern.BucketCreate, request);
  }
}
