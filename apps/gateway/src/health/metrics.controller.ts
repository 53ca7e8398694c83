import { Controller, Get, Res } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { GatewayMetrics } from '../http/metrics';
import { ApiArea, ApiDoc } from '../openapi/api-docs';

/** GET /metrics: Prometheus text format. Meant for the scraper on the internal network (not rate limited). */
@Controller('metrics')
@ApiArea('operations', 'none')
export class MetricsController {
  constructor(private readonly metrics: GatewayMetrics) {}

  @Get()
  @ApiDoc({
    summary: 'Prometheus metrics (text format)',
    doc: 'docs/operations.md',
    ok: [200, 'Metrics', { 'text/plain': { type: 'string' } }],
  })
  async scrape(@Res() reply: FastifyReply): Promise<void> {
    await reply
      .code(200)
      .type(this.metrics.registry.contentType)
      .send(await this.metrics.registry.metrics());
  }
}
