-- AlterTable
ALTER TABLE "oversight_bucket" ADD COLUMN     "s3" JSONB,
ADD COLUMN     "sealed_secret_access_key" TEXT,
ALTER COLUMN "root" DROP NOT NULL;
