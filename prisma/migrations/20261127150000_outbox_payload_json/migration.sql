-- The outbox payload is kept as the JSON text it was written as (json), not parsed into jsonb: the relay
-- sends that text to Kafka as it is, so writing a row no longer builds a jsonb value and reading it no
-- longer prints one back (docs/decisions.md, "The outbox keeps the payload's text").
ALTER TABLE "messaging_outbox" ALTER COLUMN "payload" SET DATA TYPE JSON USING "payload"::json;
