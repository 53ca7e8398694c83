-- AlterTable
ALTER TABLE "platform_unit" ADD COLUMN     "reserved_by" TEXT,
ADD COLUMN     "reserved_until" TIMESTAMPTZ(3);
