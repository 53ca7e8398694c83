-- AlterTable
ALTER TABLE "delivery" ADD COLUMN     "request_id" TEXT;
