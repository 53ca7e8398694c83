-- AlterTable
ALTER TABLE "messaging_outbox" ADD COLUMN     "dead_letter_reason" TEXT,
ADD COLUMN     "dead_lettered_at" TIMESTAMPTZ(3);
