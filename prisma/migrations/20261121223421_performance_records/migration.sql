-- AlterTable
ALTER TABLE "performance_workstream" ADD COLUMN     "qc_sample_rate" DOUBLE PRECISION NOT NULL DEFAULT 0.05,
ADD COLUMN     "qc_score_threshold" DOUBLE PRECISION NOT NULL DEFAULT 0.5;

-- CreateTable
CREATE TABLE "performance_quality_record" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workstream_id" TEXT NOT NULL,
    "use_case_id" TEXT NOT NULL,
    "task_definition_id" TEXT NOT NULL,
    "unique_id" TEXT,
    "dataset_id" TEXT,
    "asset_id" TEXT,
    "task_id" TEXT,
    "task_url" TEXT,
    "task_completed_at" TIMESTAMPTZ(3),
    "worker_id" TEXT NOT NULL,
    "review_completed_at" TIMESTAMPTZ(3) NOT NULL,
    "review_duration" DOUBLE PRECISION,
    "reviewed_by" TEXT,
    "review_score" DOUBLE PRECISION NOT NULL,
    "review_explanation" TEXT,
    "errors" JSONB NOT NULL DEFAULT '{}',
    "review_type" TEXT,
    "task_review_count" INTEGER,
    "subtask_review_count" INTEGER,
    "review_metadata" JSONB,
    "review_measurements" JSONB,
    "upload_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "performance_quality_record_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "performance_throughput_record" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "workstream_id" TEXT NOT NULL,
    "use_case_id" TEXT NOT NULL DEFAULT '',
    "task_definition_id" TEXT NOT NULL DEFAULT '',
    "unique_id" TEXT,
    "worker_id" TEXT NOT NULL,
    "task_id" TEXT,
    "dataset_id" TEXT,
    "asset_id" TEXT,
    "task_url" TEXT,
    "task_started_at" TIMESTAMPTZ(3),
    "task_completed_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_seconds" DOUBLE PRECISION,
    "task_count" INTEGER NOT NULL DEFAULT 1,
    "subtask_count" INTEGER,
    "task_metadata" JSONB,
    "upload_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "performance_throughput_record_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "performance_upload" (
    "id" TEXT NOT NULL,
    "workstream_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "file_name" TEXT,
    "state" TEXT NOT NULL,
    "blob_key" TEXT,
    "bytes" BIGINT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "rows_processed" INTEGER NOT NULL DEFAULT 0,
    "rows_stored" INTEGER NOT NULL DEFAULT 0,
    "rows_replaced" INTEGER NOT NULL DEFAULT 0,
    "rows_ignored" INTEGER NOT NULL DEFAULT 0,
    "rows_rejected" INTEGER NOT NULL DEFAULT 0,
    "failure" TEXT,
    "claimed_by" TEXT,
    "heartbeat_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "received_at" TIMESTAMPTZ(3),
    "started_at" TIMESTAMPTZ(3),
    "finished_at" TIMESTAMPTZ(3),

    CONSTRAINT "performance_upload_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "performance_upload_rejection" (
    "upload_id" TEXT NOT NULL,
    "row" INTEGER NOT NULL,
    "errors" JSONB NOT NULL,

    CONSTRAINT "performance_upload_rejection_pkey" PRIMARY KEY ("upload_id","row")
);

-- CreateIndex
CREATE INDEX "performance_quality_record_workstream_id_review_completed_a_idx" ON "performance_quality_record"("workstream_id", "review_completed_at");

-- CreateIndex
CREATE UNIQUE INDEX "performance_quality_record_workstream_id_use_case_id_task_d_key" ON "performance_quality_record"("workstream_id", "use_case_id", "task_definition_id", "unique_id");

-- CreateIndex
CREATE INDEX "performance_throughput_record_workstream_id_task_completed__idx" ON "performance_throughput_record"("workstream_id", "task_completed_at");

-- CreateIndex
CREATE UNIQUE INDEX "performance_throughput_record_workstream_id_use_case_id_tas_key" ON "performance_throughput_record"("workstream_id", "use_case_id", "task_definition_id", "unique_id");

-- CreateIndex
CREATE INDEX "performance_upload_state_idx" ON "performance_upload"("state");

-- CreateIndex
CREATE INDEX "performance_upload_workstream_id_idx" ON "performance_upload"("workstream_id");
