import { Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '@workline/db';
import { AppMetrics } from '@workline/observability';
import { DeliveryScheduler } from './delivery.scheduler';

const STATES = ['pending', 'delivered', 'dead'] as const;

/**
 * Publishes `webhook_deliveries{state}` (deliveries stored, by state; read when scraped) and
 * `webhook_dispatch_queue{state}` (deliveries this instance holds a lease on: waiting for their turn, under way).
 */
@Injectable()
export class DeliveryMetrics {
  constructor(prisma: PrismaService, scheduler: DeliveryScheduler, @Optional() metrics?: AppMetrics) {
    metrics?.gauge(
      'webhook_dispatch_queue',
      'Deliveries this instance holds a lease on: waiting for their turn, or in an attempt',
      ['state'],
      async () => {
        const { waiting, inFlight } = scheduler.dispatchQueue;
        return [
          { labels: { state: 'waiting' }, value: waiting },
          { labels: { state: 'in_flight' }, value: inFlight },
        ];
      },
    );
    metrics?.gauge(
      'webhook_deliveries',
      'Webhook and callback deliveries stored, by state: pending (waiting or in an attempt), delivered, dead',
      ['state'],
      async () => {
        const rows = await prisma.$queryRaw<
          { status: string; count: bigint }[]
        >`select status, count(*) as count from delivery group by status`;
        const counts = new Map(rows.map((row) => [row.status, Number(row.count)]));
        return STATES.map((state) => ({ labels: { state }, value: counts.get(state) ?? 0 }));
      },
    );
  }
}
