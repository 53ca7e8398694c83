-- The unit claims read the oldest waiting units in (created_at, run_id, seq) order. A run's units share
-- created_at, so with (status, created_at) alone every claim sorted all the waiting units of the oldest run
-- (10,001 rows read and sorted, 2.4 ms, to take 32 units of a 10,000-unit run). With the tie-break in the
-- index a claim reads only the rows it takes.
DROP INDEX "platform_unit_status_created_at_idx";

DROP INDEX "platform_unit_status_line_id_created_at_idx";

CREATE INDEX "platform_unit_status_created_at_run_id_seq_idx" ON "platform_unit"("status", "created_at", "run_id", "seq");

CREATE INDEX "platform_unit_status_line_id_created_at_run_id_seq_idx" ON "platform_unit"("status", "line_id", "created_at", "run_id", "seq");
