import { type Sql, statement } from '@workline/db';
import type { OutboxRow, RelayedEvent } from './outbox-relay';

/**
 * Events of batch rows that can never be published, each as a dead-lettered row of its own (the batch row
 * itself is marked published with the rest of its events).
 */
const RELAY_DEAD_EVENTS = statement(
  'outbox_relay_dead_events',
  `insert into messaging_outbox (id, source, topic, key, payload, headers, dead_lettered_at, dead_letter_reason)
   select x.id, $1, x.topic, x.key, x.payload::json, x.headers::jsonb, now(), x.reason
   from unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) as x(id, topic, key, payload, headers, reason)`,
);

/** Marks a batch's rows, one statement: published, or dead-lettered with the reason (reason not null). */
export const RELAY_MARK = statement(
  'outbox_relay_mark',
  `update messaging_outbox o set
     published_at = case when d.reason is null then now() end,
     dead_lettered_at = case when d.reason is not null then now() end,
     dead_letter_reason = d.reason
   from unnest($1::bigint[], $2::text[]) as d(seq, reason)
   where o.seq = d.seq`,
);

/**
 * Marks the rows a relay transaction took: published, or dead-lettered with the reason when the row's one
 * event can never be published. An event of a batch row that can never be published gets a dead-lettered
 * row of its own, the batch row itself being marked published with the rest of its events.
 */
export async function markRelayed(sql: Sql, source: string, rows: OutboxRow[], dead: Map<RelayedEvent, string>): Promise<void> {
  const seqs = new Array<string>(rows.length);
  const reasons = new Array<string | null>(rows.length);
  const deadOfRow = new Map<OutboxRow, string>();
  const deadInBatches: [RelayedEvent, string][] = [];
  for (const [event, reason] of dead) {
    if (event.row.events === null) deadOfRow.set(event.row, reason);
    else deadInBatches.push([event, reason]);
  }
  for (let i = 0; i < rows.length; i++) {
    seqs[i] = rows[i].seq;
    reasons[i] = deadOfRow.get(rows[i]) ?? null;
  }
  if (deadInBatches.length) await deadLetterBatchEvents(sql, source, deadInBatches);
  await sql.query(RELAY_MARK, [seqs, reasons]);
}

/** Gives each event of a batch row that can never be published a dead-lettered row of its own, with the reason. */
async function deadLetterBatchEvents(sql: Sql, source: string, events: [RelayedEvent, string][]): Promise<void> {
  await sql.query(RELAY_DEAD_EVENTS, [
    source,
    events.map(([event]) => event.id),
    events.map(([event]) => event.row.topic),
    events.map(([event]) => event.row.key),
    events.map(([event]) => event.message.value as string),
    events.map(([event]) => event.row.headers),
    events.map(([, reason]) => reason),
  ]);
}
