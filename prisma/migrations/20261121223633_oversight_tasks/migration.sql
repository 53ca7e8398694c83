-- CreateTable
CREATE TABLE "oversight_media_grant" (
    "id" TEXT NOT NULL,
    "workstream_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "configuration_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oversight_media_grant_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oversight_bucket" (
    "id" TEXT NOT NULL,
    "workstream_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "driver" TEXT NOT NULL,
    "root" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oversight_bucket_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "oversight_task" (
    "id" TEXT NOT NULL,
    "workstream_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "configuration_id" TEXT NOT NULL,
    "media_key" TEXT NOT NULL,
    "bucket_id" TEXT,
    "media_type" TEXT NOT NULL,
    "callback_url" TEXT,
    "sealed_authorization" TEXT,
    "sealed_api_key" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "existing_tags" JSONB NOT NULL,
    "updated_tags" JSONB,
    "metadata" JSONB,
    "error" TEXT,
    "assignment_id" TEXT,
    "worker_id" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "oversight_task_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "oversight_media_grant_workstream_id_idx" ON "oversight_media_grant"("workstream_id");

-- CreateIndex
CREATE INDEX "oversight_bucket_workstream_id_idx" ON "oversight_bucket"("workstream_id");

-- CreateIndex
CREATE UNIQUE INDEX "oversight_task_assignment_id_key" ON "oversight_task"("assignment_id");

-- CreateIndex
CREATE INDEX "oversight_task_state_created_at_idx" ON "oversight_task"("state", "created_at");

-- CreateIndex
CREATE INDEX "oversight_task_workstream_id_idx" ON "oversight_task"("workstream_id");
