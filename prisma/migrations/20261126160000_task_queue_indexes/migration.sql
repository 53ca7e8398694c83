-- The work API's next task reads the oldest QUEUED tasks in (created_at, id) order and stops after a few.
-- With statistics taken before a burst of task creations, the planner took the queued tasks from the index on
-- (state, lease_expires_at), which also starts with state, and sorted all of them (15 ms with 100,000 queued,
-- even planned along indexes). Now the queue index gives the exact order, and the lease index holds only
-- leased tasks, so it cannot serve the queued ones. Prisma 6 cannot declare partial indexes, see
-- prisma/schema/oversight.prisma beside the model.
DROP INDEX "oversight_task_state_created_at_idx";

CREATE INDEX "oversight_task_state_created_at_id_idx" ON "oversight_task"("state", "created_at", "id");

DROP INDEX "oversight_task_state_lease_expires_at_idx";

CREATE INDEX "oversight_task_leased_expires_at_idx" ON "oversight_task"("lease_expires_at") WHERE "state" = 'IN_PROGRESS';
