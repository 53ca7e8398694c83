-- AlterTable
ALTER TABLE "identity_api_key" ADD COLUMN     "idempotency_hash" TEXT,
ADD COLUMN     "idempotency_key" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "identity_api_key_rotated_from_id_idempotency_key_key" ON "identity_api_key"("rotated_from_id", "idempotency_key");
