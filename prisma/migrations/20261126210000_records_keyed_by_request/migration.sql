-- A quality or throughput record sent without a unique_id matches no dedupe rule, so an RPC request read
-- again after a crash (between its start and its batch's offset commit) stored it a second time, with a
-- second QC event. The request's correlation id now rides on such a record, unique, and the insert skips a
-- record whose request already stored one. Only those records carry it (CSV rows and records with a
-- unique_id leave it null), so the index stays as small as the rows it guards.
-- Prisma 6 cannot declare partial indexes, see prisma/schema/performance.prisma beside the fields.
ALTER TABLE "performance_quality_record" ADD COLUMN "rpc_request_id" TEXT;
ALTER TABLE "performance_throughput_record" ADD COLUMN "rpc_request_id" TEXT;

CREATE UNIQUE INDEX "performance_quality_record_rpc_request_id_key" ON "performance_quality_record" ("rpc_request_id")
  WHERE "rpc_request_id" IS NOT NULL;
CREATE UNIQUE INDEX "performance_throughput_record_rpc_request_id_key" ON "performance_throughput_record" ("rpc_request_id")
  WHERE "rpc_request_id" IS NOT NULL;
