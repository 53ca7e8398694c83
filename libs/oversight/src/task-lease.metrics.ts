import { Injectable, Optional } from '@nestjs/common';
import { PrismaService } from '@workline/db';
import { AppMetrics, SharedMetric } from '@workline/observability';

/** Publishes `assignments_leased{kind="task"}`: annotation tasks a worker holds now (read when scraped). */
@Injectable()
export class TaskLeaseMetrics {
  constructor(prisma: PrismaService, @Optional() metrics?: AppMetrics) {
    metrics?.gauge(SharedMetric.AssignmentsLeased.name, SharedMetric.AssignmentsLeased.help, ['kind'], async () => {
      const [{ count }] = await prisma.$queryRaw<{ count: bigint }[]>`
        select count(*) as count from oversight_task where state = 'IN_PROGRESS' and lease_expires_at > now()`;
      return [{ labels: { kind: 'task' }, value: Number(count) }];
    });
  }
}
