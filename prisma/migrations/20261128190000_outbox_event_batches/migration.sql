-- A bulk writer (the QC events of a CSV import) writes the many events of one batch, topic and key as ONE outbox
-- row: `events` holds them one per line (`<event id>\t<occurred_at>\t<envelope JSON>`), `event_count` how
-- many. One row to insert, read and mark instead of hundreds, each with its index entries: the row-per-event
-- outbox cost PostgreSQL about as much as the records themselves (docs/decisions.md, "Event batches in the
-- outbox"). The id of a batch row is that of the row, not of an event. Its events never dead-letter as a whole (an
-- event that can never be published gets a dead-lettered row of its own).
ALTER TABLE "messaging_outbox" ALTER COLUMN "payload" DROP NOT NULL;
ALTER TABLE "messaging_outbox" ADD COLUMN "events" TEXT, ADD COLUMN "event_count" INTEGER;
ALTER TABLE "messaging_outbox" ADD CONSTRAINT "messaging_outbox_payload_or_events"
  CHECK (("payload" IS NULL) <> ("events" IS NULL) AND ("events" IS NULL) = ("event_count" IS NULL));

-- One row per event whichever way it was written, for audits, support and tests: what was (or will be) sent.
-- `ord` orders the events of a batch row (0 for a row of one event), and order by (seq, ord) is the send order.
CREATE VIEW "messaging_outbox_events" AS
  SELECT "seq", 0::bigint AS "ord", "id", "source", "topic", "key", "payload", "headers", "created_at",
    "published_at", "dead_lettered_at", "dead_letter_reason"
  FROM "messaging_outbox" WHERE "events" IS NULL
  UNION ALL
  SELECT o."seq", e."ord", split_part(e."line", E'\t', 1), o."source", o."topic", o."key",
    split_part(e."line", E'\t', 3)::json, o."headers", o."created_at", o."published_at", NULL, NULL
  FROM "messaging_outbox" o CROSS JOIN LATERAL string_to_table(o."events", E'\n') WITH ORDINALITY AS e("line", "ord")
  WHERE o."events" IS NOT NULL;
