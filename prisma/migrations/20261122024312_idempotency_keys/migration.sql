-- AlterTable
ALTER TABLE "oversight_task" ADD COLUMN     "idempotency_hash" TEXT,
ADD COLUMN     "idempotency_key" TEXT;

-- AlterTable
ALTER TABLE "platform_run" ADD COLUMN     "idempotency_hash" TEXT,
ADD COLUMN     "idempotency_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "oversight_task_workstream_id_idempotency_key_key" ON "oversight_task"("workstream_id", "idempotency_key");

-- CreateIndex
CREATE UNIQUE INDEX "platform_run_account_id_idempotency_key_key" ON "platform_run"("account_id", "idempotency_key");
