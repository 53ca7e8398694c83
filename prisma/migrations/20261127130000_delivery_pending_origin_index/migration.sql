-- The dispatcher's claim walks the origins with pending deliveries on this index (one probe per origin)
-- and takes each open origin's due rows in due order from it, instead of scanning every due row in due
-- order and skipping those of origins at their cap (405 ms per poll for a 300,000-row backlog of one
-- saturated origin). The expression is the claim's ORIGIN_SQL, character for character (libs/webhook-dispatcher,
-- delivery-store.ts), so the planner matches it.
CREATE INDEX "delivery_pending_origin_idx" ON "delivery" ((substring(url from '^[^:/?#]+://[^/?#]*')), "next_attempt_at")
  WHERE "status" = 'pending';
