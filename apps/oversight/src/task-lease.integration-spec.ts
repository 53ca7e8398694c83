import {
  apiClient,
  completeTask,
  createImageTask,
  createOversightTenant,
  dbQuery,
  flagTask,
  leaseTask,
  newWorkerToken,
  ok,
  takesTurnOn,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

/**
 * A task's lease is over when it runs out, as a unit's is (docs/work-api.md): a late complete or flag is 409 even
 * while nobody has taken the task since, changes nothing, and the task is offered again.
 */
describe('task leases (real gateway, oversight and PostgreSQL)', () => {
  // It leases tasks: the files whose tasks must stay QUEUED meanwhile wait their turn.
  takesTurnOn('oversight task queue');

  it('refuses a late complete or flag once the lease ran out, even while nobody has taken the task since (409)', async () => {
    const tenant = await createOversightTenant(`Task leases ${randomUUID().slice(0, 6)}`);
    const worker = await newWorkerToken();
    const { taskId } = await createImageTask(tenant);
    const held = await leaseTask(worker, taskId);
    // Time travel instead of waiting out the lease: it ends now.
    await dbQuery(`update oversight_task set lease_expires_at = now() - interval '1 second' where assignment_id = $1`, [
      held.assignment_id,
    ]);

    const late = await completeTask(worker, held.assignment_id, { updated_tags: [{ value: 'late', confidence_score: 1 }] });
    expect({ status: late.status, body: late.error }).toEqual({
      status: 409,
      body: { message: `assignment ${held.assignment_id} cannot be completed: its lease expired and the task went back to the queue` },
    });
    const flagged = await flagTask(worker, held.assignment_id, 'late');
    expect({ status: flagged.status, body: flagged.error }).toEqual({
      status: 409,
      body: { message: `assignment ${held.assignment_id} cannot be flagged: its lease expired and the task went back to the queue` },
    });
    const status = await ok(apiClient({ apiKey: tenant.key }).GET('/v1/tasks/{id}', { params: { path: { id: taskId } } }), 200);
    expect(status.state).toBe('IN_PROGRESS');
    const [row] = await dbQuery<{ updated_tags: unknown }>('select updated_tags from oversight_task where id = $1', [taskId]);
    expect(row.updated_tags).toBeNull();

    const again = await leaseTask(worker, taskId);
    expect(again.assignment_id).not.toBe(held.assignment_id);
    expect((await completeTask(worker, again.assignment_id, { updated_tags: [] })).status).toBe(200);
  });
});
