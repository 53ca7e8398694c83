import { Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '@workline/db';
import { AppMetrics } from '@workline/observability';

const STATES = ['pending', 'delivered', 'dead'] as const;

/** Publishes `webhook_deliveries{state}`: deliveries stored, by state (read when scraped). */
@Injectable()
export class DeliveryMetrics {
  constructor(prisma: PrismaService, @Optional() metrics?: AppMetrics) {
    metrics?.gauge('webhook_deliveries', 'Webhook and callback deliveries stored, by state: pending (waiting or in an attempt), delivered, dead', ['state'], async () => {
      const rows = await prisma.$queryRaw<{ status: string; count: bigint }[]>`select status, count(*) as count from delivery group by status`;
      const counts = new Map(rows.map((row) => [row.status, Number(row.count)]));
      return STATES.map((state) => ({ labels: { state }, value: counts.get(state) ?? 0 }));
    });
  }
}
