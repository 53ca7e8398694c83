-- CreateIndex
CREATE INDEX "oversight_media_grant_expires_at_idx" ON "oversight_media_grant"("expires_at");

-- CreateIndex
CREATE INDEX "oversight_task_media_key_idx" ON "oversight_task"("media_key");
