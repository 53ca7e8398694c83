-- Inbox rows are pruned once no topic can hand their event back (Inbox pruning, libs/messaging). Rows are
-- written in time order, so a BRIN index finds the expired pages at almost no cost to inserts.
CREATE INDEX "messaging_inbox_processed_at_idx" ON "messaging_inbox" USING BRIN ("processed_at");
