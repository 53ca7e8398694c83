-- A record with a unique_id keeps the RPC request that last wrote it (its correlation id) and what that
-- request's answer was (stored or replaced). The same request read again after a crash (between its start
-- and its batch's offset commit) then finds its own write and answers as it did, instead of replacing the
-- record with the same values and sending QC a second event (docs/decisions.md, "A request read again").
-- No index: the upsert reaches the row through the unique key, and CSV rows leave both null.
ALTER TABLE "performance_quality_record" ADD COLUMN "last_request_id" TEXT, ADD COLUMN "last_request_outcome" TEXT;
ALTER TABLE "performance_throughput_record" ADD COLUMN "last_request_id" TEXT, ADD COLUMN "last_request_outcome" TEXT;
