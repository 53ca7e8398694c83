-- The work API's next task is the older of two probes: the oldest QUEUED task (state, created_at) and the
-- oldest IN_PROGRESS task whose lease ran out, found along this index instead of a pass over every task.
CREATE INDEX "oversight_task_state_lease_expires_at_idx" ON "oversight_task"("state", "lease_expires_at");
