import { Controller, Inject } from '@nestjs/common';
import { RpcPattern, type HealthReply } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { IdempotentPattern, KAFKA_SETTINGS, type KafkaSettings } from '@workline/messaging';

/** Answers the gateway's health probe: reaching this handler proves Kafka works both ways. */
@Controller()
export class HealthRpcController {
  constructor(
    private readonly prisma: PrismaService,
    @Inject(KAFKA_SETTINGS) private readonly settings: KafkaSettings,
  ) {}

  @IdempotentPattern(RpcPattern.Health)
  async health(): Promise<HealthReply> {
    const error = await this.prisma.probe();
    return {
      service: this.settings.app,
      instance_id: this.settings.instanceId,
      database: error ? 'down' : 'up',
      ...(error ? { database_error: error } : {}),
    };
  }
}
