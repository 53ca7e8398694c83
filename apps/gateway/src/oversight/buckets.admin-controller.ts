import { Body, Controller, HttpCode, HttpStatus, Param, Post, UseGuards } from '@nestjs/common';
import {
  type BucketCreateRequest,
  type BucketView,
  CreateBucketDto,
  type MountedBucketSpec,
  RpcPattern,
  ServiceName,
} from '@workline/contracts';
import { KafkaRpcClient } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { AdminTokenGuard } from '../auth/guards';
import { findWorkstream } from '../performance/workstream-lookup';
import { GatewayEnv } from '../gateway.env';
import { BucketAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** Admin API: mount a workstream's own storage as a bucket that tasks may take images from. */
@Controller('admin/v1')
@ApiArea('admin', 'admin')
@UseGuards(AdminTokenGuard)
export class BucketsAdminController {
  private readonly box: SecretBox;

  constructor(
    private readonly rpc: KafkaRpcClient,
    env: GatewayEnv,
  ) {
    this.box = new SecretBox(env.secretsKey);
  }

  /** The bucket as it travels to oversight: an S3 secret access key is sealed here and never leaves in clear. */
  private spec(body: CreateBucketDto): MountedBucketSpec {
    if (body.driver === 'fs') return { driver: 'fs', root: body.root! };
    return {
      driver: 's3',
      endpoint: body.endpoint!,
      region: body.region!,
      bucket: body.bucket!,
      prefix: body.prefix ?? '',
      access_key_id: body.access_key_id!,
      sealed_secret_access_key: this.box.seal(body.secret_access_key!),
      force_path_style: body.force_path_style ?? true,
    };
  }

  @Post('workstreams/:workstream_id/buckets')
  @ApiDoc({
    summary: 'Mount a bucket (driver fs or s3) for oversight tasks',
    doc: 'docs/oversight-api.md',
    body: CreateBucketDto,
    ok: [201, 'The bucket', BucketAnswer],
    errors: [400, 404, 413, 415, 422],
  })
  @HttpCode(HttpStatus.CREATED)
  async create(@Param('workstream_id') workstreamId: string, @Body() body: CreateBucketDto): Promise<BucketView> {
    const workstream = await findWorkstream(this.rpc, workstreamId);
    const request: BucketCreateRequest = { workstream_id: workstream.id, account_id: workstream.account_id, bucket: this.spec(body) };
    return this.rpc.request<BucketView>(ServiceName.Oversight, RpcPattern.BucketCreate, request);
  }
}
