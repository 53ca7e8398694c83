-- The leased-units gauge (assignments_leased, kind unit) counted the Processing units whose lease had not
-- ended, reading every Processing unit at each scrape (27 ms with 60,000 waiting). It now reads the open
-- assignments along this partial index, which holds only assignments without an outcome: an outcome takes
-- the row out of it. Prisma 6 cannot declare partial indexes, see prisma/schema/platform.prisma beside the model.
CREATE INDEX "platform_unit_assignment_open_idx" ON "platform_unit_assignment" ("expires_at") WHERE "outcome" IS NULL;
