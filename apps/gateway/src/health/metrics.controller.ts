import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GatewayMetrics } from '../http/metrics';

/** GET /metrics: Prometheus text format. Meant for the scraper on the internal network (not rate limited). */
@Controller('metrics')
export class MetricsController {
  constructor(private readonly metrics: GatewayMetrics) {}

  @Get()
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    await reply.code(200).type(this.metrics.registry.contentType).send(await this.metrics.registry.metrics());
  }
}
