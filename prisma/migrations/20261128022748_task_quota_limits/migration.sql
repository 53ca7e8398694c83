-- CreateTable
CREATE TABLE "gateway_task_quota" (
    "workstream_id" TEXT NOT NULL,
    "per_day" INTEGER,
    "per_week" INTEGER,
    "per_month" INTEGER,
    "version" INTEGER NOT NULL DEFAULT 1,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "gateway_task_quota_pkey" PRIMARY KEY ("workstream_id")
);
