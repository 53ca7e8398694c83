-- The dedupe key's unique index leads with unique_id, the column that tells records apart. With the
-- workstream first, every comparison inside the index walked three columns that are nearly always equal
-- (one workstream, a few use cases and task definitions) before reaching unique_id, and those comparisons
-- were the largest share of PostgreSQL's time in a CSV import (docs/benchmarks.md, "The dedupe index led
-- by unique_id"). The key is the same set of columns, so uniqueness, ON CONFLICT and every lookup by key
-- are unchanged. Reports read by workstream and time through their own index.
-- IF NOT EXISTS: an operator may build the new indexes beforehand with CREATE UNIQUE INDEX CONCURRENTLY
-- under these names, so that writes never wait for the build (docs/operations.md, "Upgrading").
CREATE UNIQUE INDEX IF NOT EXISTS "performance_quality_record_dedupe_key"
  ON "performance_quality_record" ("unique_id", "workstream_id", "use_case_id", "task_definition_id");
DROP INDEX IF EXISTS "performance_quality_record_workstream_id_use_case_id_task_d_key";
CREATE UNIQUE INDEX IF NOT EXISTS "performance_throughput_record_dedupe_key"
  ON "performance_throughput_record" ("unique_id", "workstream_id", "use_case_id", "task_definition_id");
DROP INDEX IF EXISTS "performance_throughput_record_workstream_id_use_case_id_tas_key";
