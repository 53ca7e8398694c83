-- CreateTable
CREATE TABLE "delivery" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "workstream_id" TEXT,
    "task_id" TEXT,
    "run_id" TEXT,
    "event_type" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "body" TEXT NOT NULL,
    "signing" TEXT NOT NULL,
    "sealed_secret" TEXT,
    "sealed_authorization" TEXT,
    "status" TEXT NOT NULL,
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "round_failures" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3),
    "lease_token" TEXT,
    "lease_until" TIMESTAMPTZ(3),
    "redeliver_requested" BOOLEAN NOT NULL DEFAULT false,
    "last_status_code" INTEGER,
    "last_error" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "delivered_at" TIMESTAMPTZ(3),
    "dead_at" TIMESTAMPTZ(3),

    CONSTRAINT "delivery_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "delivery_attempt" (
    "delivery_id" TEXT NOT NULL,
    "number" INTEGER NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "duration_ms" INTEGER NOT NULL,
    "status_code" INTEGER,
    "error" TEXT,
    "response_excerpt" TEXT,
    "instance_id" TEXT NOT NULL,

    CONSTRAINT "delivery_attempt_pkey" PRIMARY KEY ("delivery_id","number")
);

-- CreateIndex
CREATE INDEX "delivery_status_next_attempt_at_idx" ON "delivery"("status", "next_attempt_at");

-- CreateIndex
CREATE INDEX "delivery_account_id_workstream_id_created_at_idx" ON "delivery"("account_id", "workstream_id", "created_at");

-- CreateIndex
CREATE INDEX "delivery_task_id_idx" ON "delivery"("task_id");

-- AddForeignKey
ALTER TABLE "delivery_attempt" ADD CONSTRAINT "delivery_attempt_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "delivery"("id") ON DELETE CASCADE ON UPDATE CASCADE;
