-- CreateTable
CREATE TABLE "platform_run" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "line_id" TEXT NOT NULL,
    "api" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "callback_url" TEXT,
    "callback_authorization" TEXT,
    "unit_count" INTEGER NOT NULL,
    "pending_units" INTEGER NOT NULL,
    "abort_requested_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_run_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_unit" (
    "run_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "line_id" TEXT NOT NULL,
    "input" JSONB NOT NULL,
    "output" JSONB,
    "status" TEXT NOT NULL,
    "flag_reason" TEXT,
    "lease_assignment_id" TEXT,
    "lease_expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "processed_at" TIMESTAMPTZ(3),

    CONSTRAINT "platform_unit_pkey" PRIMARY KEY ("run_id","seq")
);

-- CreateTable
CREATE TABLE "platform_unit_assignment" (
    "id" TEXT NOT NULL,
    "run_id" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "worker_id" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "ended_at" TIMESTAMPTZ(3),
    "outcome" TEXT,

    CONSTRAINT "platform_unit_assignment_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "platform_run_account_id_idx" ON "platform_run"("account_id");

-- CreateIndex
CREATE INDEX "platform_unit_status_created_at_idx" ON "platform_unit"("status", "created_at");

-- CreateIndex
CREATE INDEX "platform_unit_status_line_id_created_at_idx" ON "platform_unit"("status", "line_id", "created_at");

-- CreateIndex
CREATE INDEX "platform_unit_assignment_run_id_seq_idx" ON "platform_unit_assignment"("run_id", "seq");
