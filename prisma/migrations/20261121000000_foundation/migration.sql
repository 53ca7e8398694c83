-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "identity_account" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "password_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_account_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "identity_api_key" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "workstream_id" TEXT,
    "key_hash" TEXT NOT NULL,
    "key_ciphertext" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "identity_api_key_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "identity_worker" (
    "id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "token_hash" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "identity_worker_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "messaging_outbox" (
    "seq" BIGSERIAL NOT NULL,
    "id" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "key" TEXT,
    "payload" JSONB NOT NULL,
    "headers" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMPTZ(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "messaging_outbox_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "messaging_inbox" (
    "consumer" TEXT NOT NULL,
    "event_id" TEXT NOT NULL,
    "processed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messaging_inbox_pkey" PRIMARY KEY ("consumer","event_id")
);

-- CreateTable
CREATE TABLE "oversight_configuration" (
    "id" TEXT NOT NULL,
    "workstream_id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "extended_events" BOOLEAN NOT NULL DEFAULT false,
    "tool_project_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "oversight_configuration_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "performance_workstream" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "use_cases" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "performance_workstream_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "platform_line" (
    "id" TEXT NOT NULL,
    "account_id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "platform_line_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "identity_account_username_key" ON "identity_account"("username");

-- CreateIndex
CREATE UNIQUE INDEX "identity_api_key_key_hash_key" ON "identity_api_key"("key_hash");

-- CreateIndex
CREATE INDEX "identity_api_key_account_id_idx" ON "identity_api_key"("account_id");

-- CreateIndex
CREATE INDEX "identity_api_key_workstream_id_idx" ON "identity_api_key"("workstream_id");

-- CreateIndex
CREATE UNIQUE INDEX "identity_worker_email_key" ON "identity_worker"("email");

-- CreateIndex
CREATE UNIQUE INDEX "identity_worker_token_hash_key" ON "identity_worker"("token_hash");

-- CreateIndex
CREATE UNIQUE INDEX "messaging_outbox_id_key" ON "messaging_outbox"("id");

-- CreateIndex
CREATE INDEX "messaging_outbox_source_published_at_seq_idx" ON "messaging_outbox"("source", "published_at", "seq");

-- CreateIndex
CREATE INDEX "oversight_configuration_workstream_id_idx" ON "oversight_configuration"("workstream_id");

-- CreateIndex
CREATE INDEX "performance_workstream_account_id_idx" ON "performance_workstream"("account_id");

-- CreateIndex
CREATE INDEX "platform_line_account_id_idx" ON "platform_line"("account_id");

-- AddForeignKey
ALTER TABLE "identity_api_key" ADD CONSTRAINT "identity_api_key_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "identity_account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

