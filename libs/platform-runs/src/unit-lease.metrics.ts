import { Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '@workline/db';
import { AppMetrics, SharedMetric } from '@workline/observability';
import { UnitStatus } from './run-views';

/** Publishes `assignments_leased{kind="unit"}`: units a worker holds now (read when scraped). */
@Injectable()
export class UnitLeaseMetrics {
  constructor(prisma: PrismaService, @Optional() metrics?: AppMetrics) {
    metrics?.gauge(SharedMetric.AssignmentsLeased.name, SharedMetric.AssignmentsLeased.help, ['kind'], async () => {
      const [{ count }] = await prisma.$queryRaw<{ count: bigint }[]>`
        select count(*) as count from platform_unit where status = ${UnitStatus.Processing} and lease_expires_at > now()`;
      return [{ labels: { kind: 'unit' }, value: Number(count) }];
    });
  }
}
