-- AlterTable
ALTER TABLE "identity_api_key" ADD COLUMN     "expires_at" TIMESTAMPTZ(3),
ADD COLUMN     "rotated_from_id" TEXT;
