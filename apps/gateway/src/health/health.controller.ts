import { type CanActivate, Controller, type ExecutionContext, Get, Injectable, Req, Res, UseGuards } from '@nestjs/common';
import { ALL_SERVICES, errorMessage, type HealthReply, RpcPattern } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { KafkaRpcClient } from '@workline/messaging';
import { CachedCheck } from '@workline/observability';
import { RedisService } from '@workline/redis';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AdminTokenGuard } from '../auth/guards';
import { GatewayLifecycle } from './lifecycle';
import { HealthAnswer, LiveAnswer } from '@workline/contracts';
import { ApiArea, ApiDoc, type OperationDoc } from '../openapi/api-docs';

/** Both readiness routes: 200 or 503 with the same body; a wrong admin token is a 401. */
const READINESS = {
  ok: [200, 'Ready', HealthAnswer],
  errors: [401, 429],
  errorAnswers: { 503: HealthAnswer },
} as const satisfies Partial<OperationDoc>;

const PROBE_TIMEOUT_MS = 3000;

/** How long an anonymous caller is answered from the last check (docs/operations.md "Health and metrics"). */
export const HEALTH_CACHE_MS = 2000;

interface ComponentHealth {
  status: 'up' | 'down';
  detail?: string;
  instance_id?: string;
}

interface HealthReport {
  healthy: boolean;
  /** What is down, for the admin token: e.g. "platform-runs: no answer over Kafka". */
  problems: string[];
  components: Record<string, ComponentHealth>;
}

/**
 * Anonymous callers (load balancers, orchestrators) pass; a request with an Authorization header must carry
 * the admin token, checked by the admin guard (401 otherwise, counted by the failed-authentication limiter),
 * so /health never becomes an unlimited oracle for guessing it.
 */
@Injectable()
export class HealthDetailsGuard implements CanActivate {
  constructor(private readonly admin: AdminTokenGuard) {}

  canActivate(context: ExecutionContext): Promise<boolean> | boolean {
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    return request.headers.authorization === undefined ? true : this.admin.canActivate(context);
  }
}

/**
 * GET /health (and GET /health/ready, its name for orchestrators): 200 only when the gateway reaches its
 * database and Redis, and every service answers over Kafka and reaches its own database; otherwise 503.
 * Anonymous callers get `{status}` only, from a check made at most every HEALTH_CACHE_MS and shared by
 * everyone asking meanwhile (a flood of probes costs one round of RPCs); the admin token gets a fresh
 * check with what is down and per-component details (instance ids, database errors).
 */
@Controller('health')
@ApiArea('operations', 'none')
export class HealthController {
  private readonly check: CachedCheck<HealthReport>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly rpc: KafkaRpcClient,
    private readonly redis: RedisService,
    private readonly lifecycle: GatewayLifecycle,
  ) {
    this.check = new CachedCheck(() => this.probe(), HEALTH_CACHE_MS);
  }

  /** Liveness: the process is up and its event loop answers; dependencies are readiness's business. */
  @Get('live')
  @ApiDoc({ summary: 'Liveness: the process is up', doc: 'docs/operations.md', ok: [200, 'Alive', LiveAnswer] })
  live(): { status: 'ok' } {
    return { status: 'ok' };
  }

  @Get('ready')
  @ApiDoc({ summary: 'Readiness (the same checks and answers as /health)', doc: 'docs/operations.md', ...READINESS })
  @UseGuards(HealthDetailsGuard)
  ready(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(request, reply);
  }

  @Get()
  @ApiDoc({
    summary:
      'Readiness of the gateway (PostgreSQL, Redis, Kafka): {status} for anyone; every component with the admin token (optional Bearer)',
    doc: 'docs/operations.md',
    ...READINESS,
  })
  @UseGuards(HealthDetailsGuard)
  health(@Req() request: FastifyRequest, @Res() reply: FastifyReply): Promise<void> {
    return this.answer(request, reply);
  }

  private async answer(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const admin = request.principal?.kind === 'admin';
    if (this.lifecycle.draining) {
      await reply.code(503).send({ status: 'draining', ...(admin ? { message: 'Shutting down: not taking new work' } : {}) });
      return;
    }
    const report = admin ? await this.check.refresh() : await this.check.get();
    const status = report.healthy ? 'ok' : 'unavailable';
    reply.code(report.healthy ? 200 : 503);
    if (!admin) {
      await reply.send({ status });
      return;
    }
    await reply.send({
      status,
      ...(report.healthy ? {} : { message: `Down: ${report.problems.join('; ')}` }),
      components: report.components,
    });
  }

  private async probe(): Promise<HealthReport> {
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
          components[service] = { status: 'down', detail: errorMessage(error) };
          problems.push(`${service}: no answer over Kafka`);
        }
      }),
    );
    return { healthy: problems.length === 0, problems: problems.sort(), components };
  }
}
