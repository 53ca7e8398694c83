import { Injectable, Optional } from '@nestjs/common';
import { DbPool, statement } from '@workline/db';
import { AppMetrics, SharedMetric } from '@workline/observability';
import { UnitStatus } from './run-views';

/**
 * Units a worker holds now: each open assignment whose lease has not ended, found along the index of open
 * assignments, and its unit, looked up by primary key alone (`limit 1`, as the lease statement does, so that
 * the unit's checks cannot turn the plan around to read every Processing unit), still leased by it. Counting
 * the Processing units whose lease had not ended read every Processing unit at each scrape (27 ms with 60,000
 * waiting, growing with the backlog); this reads the leases only. The same count: a lease writes the unit's
 * lease and its assignment together, with one end time, and an outcome or an abort clears the unit's.
 */
export const COUNT_LEASED_UNITS = statement(
  'platform_units_leased_count',
  `select count(*)::int as count
   from platform_unit_assignment a
   cross join lateral (
     select u.status, u.lease_assignment_id, u.lease_expires_at from platform_unit u where u.run_id = a.run_id and u.seq = a.seq limit 1
   ) unit
   where a.outcome is null and a.expires_at > now()
     and unit.lease_assignment_id = a.id and unit.status = '${UnitStatus.Processing}' and unit.lease_expires_at > now()`,
);

/** Publishes `assignments_leased{kind="unit"}` (read when scraped). */
@Injectable()
export class UnitLeaseMetrics {
  constructor(db: DbPool, @Optional() metrics?: AppMetrics) {
    metrics?.gauge(SharedMetric.AssignmentsLeased.name, SharedMetric.AssignmentsLeased.help, ['kind'], async () => {
      // Along indexes: with statistics taken before a burst, the planner would read the assignments whole.
      const [{ count }] = await db.queryAlongIndexes<{ count: number }>(COUNT_LEASED_UNITS);
      return [{ labels: { kind: 'unit' }, value: count }];
    });
  }
}
