import { type DbPool, statement } from '@workline/db';
import type { AppMetrics } from '@workline/observability';

const BACKLOG = statement(
  'outbox_backlog',
  `select coalesce(sum(coalesce(event_count, 1)), 0)::int as count
   from messaging_outbox where source = $1 and published_at is null and dead_lettered_at is null`,
);
const DEAD_LETTERS = statement(
  'outbox_dead_letters',
  'select count(*)::int as count from messaging_outbox where source = $1 and dead_lettered_at is not null',
);

/** The outbox's gauges of a source: its backlog (events not yet relayed) and its dead letters. */
export function registerOutboxGauges(metrics: AppMetrics, db: DbPool, source: string): void {
  metrics.gauge('outbox_backlog', 'Outbox rows written but not yet published to Kafka, by source app', ['source'], async () => {
    const [{ count }] = await db.query<{ count: number }>(BACKLOG, [source]);
    return [{ labels: { source }, value: count }];
  });
  metrics.gauge(
    'outbox_dead_letters',
    'Outbox rows that can never be published (e.g. larger than the topic allows), dead-lettered with the reason in ' +
      'messaging_outbox.dead_letter_reason, by source app',
    ['source'],
    async () => {
      const [{ count }] = await db.query<{ count: number }>(DEAD_LETTERS, [source]);
      return [{ labels: { source }, value: count }];
    },
  );
}
