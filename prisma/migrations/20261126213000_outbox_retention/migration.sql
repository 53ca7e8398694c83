-- Published outbox rows were kept for ever (a 1,000,000-row quality CSV leaves 524,000). The relay now
-- deletes its source's rows published longer ago than OUTBOX_RETENTION_HOURS, and this index lets it find them
-- without reading the young rows. BRIN: rows are written in created_at order, and the index costs inserts
-- almost nothing.
CREATE INDEX "messaging_outbox_created_at_idx" ON "messaging_outbox" USING BRIN ("created_at");
