import { Controller, Get, Res } from '@nestjs/common';
import { ALL_SERVICES, type HealthReply, RpcPattern } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { KafkaRpcClient } from '@workline/kafka';
import { RedisService } from '@workline/redis';
import type { Response } from 'express';
import { GatewayLifecycle } from './lifecycle';

const PROBE_TIMEOUT_MS = 3000;

interface ComponentHealth {
  status: 'up' | 'down';
  detail?: string;
  instance_id?: string;
}

/**
 * GET /health (and GET /health/ready, its name for orchestrators): 200 only when the gateway reaches its database and Redis, and every service answers over
 * Kafka and reaches its own database; otherwise 503 with a message naming each part that is down.
 */
@Controller('health')
export class HealthController {
  constructor(
    private readonly prisma: PrismaService,
    private readonly rpc: KafkaRpcClient,
    private readonly redis: RedisService,
    private readonly lifecycle: GatewayLifecycle,
  ) {}

  /** Liveness: the process is up and its event loop answers; dependencies are readiness's business. */
  @Get('live')
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  ready(@Res() response: Response): Promise<void> {
    return this.check(response);
  }

  @Get()
  async check(@Res() response: Response): Promise<void> {
    if (this.lifecycle.draining) {
      response.status(503).json({ status: 'draining', message: 'Shutting down: not taking new work' });
      return;
    }
    const components: Record<string, ComponentHealth> = {};
    const problems: string[] = [];
    const [gatewayDb, redis] = await Promise.all([this.prisma.probe(), this.redis.probe()]);
    components.gateway = gatewayDb ? { status: 'down', detail: `database: ${gatewayDb}` } : { status: 'up' };
    if (gatewayDb) problems.push('gateway: database unreachable');
    components.redis = redis ? { status: 'down', detail: redis } : { status: 'up' };
    if (redis) problems.push('redis: unreachable');

    await Promise.all(
      ALL_SERVICES.map(async (service) => {
        try {
          const reply = await this.rpc.request<HealthReply>(service, RpcPattern.Health, {}, PROBE_TIMEOUT_MS);
          if (reply.database === 'up') {
            components[service] = { status: 'up', instance_id: reply.instance_id };
          } else {
            components[service] = { status: 'down', detail: `database: ${reply.database_error}`, instance_id: reply.instance_id };
            problems.push(`${service}: database unreachable`);
          }
        } catch (error) {
          components[service] = { status: 'down', detail: error instanceof Error ? error.message : String(error) };
          problems.push(`${service}: no answer over Kafka`);
        }
      }),
    );
    const healthy = problems.length === 0;
    response.status(healthy ? 200 : 503).json({
      status: healthy ? 'ok' : 'unavailable',
      ...(healthy ? {} : { message: `Down: ${problems.sort().join('; ')}` }),
      components,
    });
  }
}
