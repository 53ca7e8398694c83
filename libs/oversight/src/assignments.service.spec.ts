import 'reflect-metadata';
import { FsBlobStore } from '@workline/blob-store';
import { ErrorCode } from '@workline/contracts';
import type { OversightTask } from '@workline/db';
import type { OutboxRelay } from '@workline/messaging';
import { signPath, urlSigningKey } from '@workline/secrets';
import { tmpdir } from 'node:os';
import { AssignmentsService } from './assignments.service';
import { InMemoryAssignments, queuedTask, TEST_SECRETS_KEY, testOversightOptions } from './testing';
import type { TasksService } from './tasks.service';

/** Assignments read no media themselves (TasksService does): the store is only there to complete the options. */
const options = testOversightOptions(new FsBlobStore(tmpdir()));
const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('AssignmentsService', () => {
  let repository: InMemoryAssignments;
  let service: AssignmentsService;
  /** Media that can no longer be read, by media key, with the reason TasksService gives. */
  let unreadable: Map<string, string>;
  let pokes: number;

  beforeEach(() => {
    repository = new InMemoryAssignments();
    unreadable = new Map();
    pokes = 0;
    const tasks = { unreadableMedia: async (task: OversightTask) => unreadable.get(task.mediaKey) } as unknown as TasksService;
    const outbox = { poke: () => pokes++ } as unknown as OutboxRelay;
    service = new AssignmentsService(repository, outbox, tasks, options);
  });

  /** Leases the next task to worker w-1 and answers its assignment id. */
  async function lease(): Promise<string> {
    return (await service.next({ worker_id: 'w-1' }))!.assignment_id;
  }

  it('leases the oldest queued task to the worker, with a signed media URL valid as long as the lease', async () => {
    repository.add(
      queuedTask({ id: 'b', createdAt: minutesAgo(5), existingTags: [{ value: 'cat', confidence_score: 0.4 }], mediaType: 'image/jpeg' }),
      queuedTask({ id: 'c', createdAt: minutesAgo(1) }),
    );
    const before = Date.now();
    const view = await service.next({ worker_id: 'w-1' });

    const leaseExpiresAt = repository.tasks.get('b')!.leaseExpiresAt!;
    expect(leaseExpiresAt.getTime()).toBeGreaterThanOrEqual(before + options.leaseSeconds * 1000);
    expect(view).toEqual({
      assignment_id: expect.stringMatching(/^asgt_[A-Za-z0-9_-]{22}$/),
      kind: 'task',
      task_id: 'b',
      media_url: `https://workline.test${signPath(urlSigningKey(TEST_SECRETS_KEY), 'GET', '/media/tasks/b', leaseExpiresAt)}`,
      media_type: 'image/jpeg',
      existing_tags: [{ value: 'cat', confidence_score: 0.4 }],
      metadata: [],
      lease_expires_at: leaseExpiresAt.toISOString(),
    });
    expect(repository.tasks.get('b')).toMatchObject({ state: 'IN_PROGRESS', workerId: 'w-1', assignmentId: view!.assignment_id });
    expect(repository.tasks.get('c')!.state).toBe('QUEUED');
  });

  it('takes a task whose lease ran out, never one leased now, locked elsewhere or finished; none left is null', async () => {
    repository.add(
      queuedTask({ id: 'leased', state: 'IN_PROGRESS', createdAt: minutesAgo(9), leaseExpiresAt: new Date(Date.now() + 60_000) }),
      queuedTask({ id: 'done', state: 'COMPLETED', createdAt: minutesAgo(8) }),
      queuedTask({ id: 'locked', createdAt: minutesAgo(7) }),
      queuedTask({ id: 'lapsed', state: 'IN_PROGRESS', workerId: 'w-0', createdAt: minutesAgo(6), leaseExpiresAt: minutesAgo(1) }),
    );
    repository.locked.add('locked');
    expect((await service.next({ worker_id: 'w-1' }))?.task_id).toBe('lapsed');
    expect(repository.tasks.get('lapsed')!.workerId).toBe('w-1');
    expect(await service.next({ worker_id: 'w-1' })).toBeNull();
  });

  it('fails a task whose media cannot be read, with its event, and leases the next one', async () => {
    repository.add(queuedTask({ id: 'gone', createdAt: minutesAgo(2) }), queuedTask({ id: 'ok', createdAt: minutesAgo(1) }));
    unreadable.set('med_gone', 'media med_gone can no longer be read');
    expect((await service.next({ worker_id: 'w-1' }))?.task_id).toBe('ok');
    expect(repository.tasks.get('gone')).toMatchObject({ state: 'ERROR', error: 'media med_gone can no longer be read', workerId: null });
    expect(repository.events.map((task) => [task.id, task.state])).toEqual([['gone', 'ERROR']]);
    expect(pokes).toBe(1);
  });

  it('answers null after failing 21 unreadable tasks in one call, leaving the rest for the next call', async () => {
    for (let i = 0; i < 22; i++) {
      repository.add(queuedTask({ id: `t${String(i).padStart(2, '0')}`, createdAt: minutesAgo(30 - i) }));
      unreadable.set(`med_t${String(i).padStart(2, '0')}`, 'unreadable');
    }
    expect(await service.next({ worker_id: 'w-1' })).toBeNull();
    expect(repository.events).toHaveLength(21);
    expect(repository.tasks.get('t21')!.state).toBe('QUEUED');
  });

  it("completes the worker's task with its tags and metadata, once", async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    const body = { updated_tags: [{ value: 'dog', confidence_score: 0.9 }], metadata: [{ key: 'shelf', value: '3' }] };
    const reply = await service.complete({ worker_id: 'w-1', assignment_id: assignmentId, body });
    expect(reply).toEqual({ assignment_id: assignmentId, kind: 'task', task_id: 't1', state: 'COMPLETED' });
    expect(repository.tasks.get('t1')).toMatchObject({
      state: 'COMPLETED',
      leaseExpiresAt: null,
      updatedTags: body.updated_tags,
      metadata: body.metadata,
    });
    expect(repository.events.map((task) => task.id)).toEqual(['t1']);
    expect(pokes).toBe(1);

    await expect(service.complete({ worker_id: 'w-1', assignment_id: assignmentId, body })).rejects.toMatchObject({
      code: ErrorCode.Conflict,
      message: `assignment ${assignmentId} is already closed: its task is COMPLETED`,
    });
    expect(repository.events).toHaveLength(1);
  });

  it("shows the worker the client's metadata, and puts the worker's after it", async () => {
    const clientItems = [{ key: 'batch', value: 'b-17' }];
    repository.add(queuedTask({ id: 't1', metadata: clientItems }));
    const view = await service.next({ worker_id: 'w-1' });
    expect(view?.metadata).toEqual(clientItems);
    const workerItems = [{ key: 'shelf', value: '3' }];
    await service.complete({ worker_id: 'w-1', assignment_id: view!.assignment_id, body: { updated_tags: [], metadata: workerItems } });
    expect(repository.tasks.get('t1')!.metadata).toEqual([...clientItems, ...workerItems]);
  });

  it('completes without metadata as an empty list', async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    await service.complete({ worker_id: 'w-1', assignment_id: assignmentId, body: { updated_tags: [] } });
    expect(repository.tasks.get('t1')).toMatchObject({ state: 'COMPLETED', updatedTags: [], metadata: [] });
  });

  it('flags the task as failed with the reason of the worker', async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    const reply = await service.flag({ worker_id: 'w-1', assignment_id: assignmentId, body: { reason: 'blurry' } });
    expect(reply).toEqual({ assignment_id: assignmentId, kind: 'task', task_id: 't1', state: 'ERROR' });
    expect(repository.tasks.get('t1')).toMatchObject({ state: 'ERROR', error: 'flagged by the worker: blurry' });
    expect(repository.events.map((task) => [task.id, task.state])).toEqual([['t1', 'ERROR']]);
  });

  it('refuses to complete or flag once the lease ran out, even if nobody took the task since, and changes nothing', async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    repository.tasks.set('t1', { ...repository.tasks.get('t1')!, leaseExpiresAt: new Date(Date.now() - 1_000) });
    await expect(service.complete({ worker_id: 'w-1', assignment_id: assignmentId, body: { updated_tags: [] } })).rejects.toMatchObject({
      code: ErrorCode.Conflict,
      message: `assignment ${assignmentId} cannot be completed: its lease expired and the task went back to the queue`,
    });
    await expect(service.flag({ worker_id: 'w-1', assignment_id: assignmentId, body: { reason: 'late' } })).rejects.toMatchObject({
      code: ErrorCode.Conflict,
      message: `assignment ${assignmentId} cannot be flagged: its lease expired and the task went back to the queue`,
    });
    expect(repository.tasks.get('t1')!.state).toBe('IN_PROGRESS');
    expect(repository.events).toHaveLength(0);
  });

  it("answers another worker's assignment, or an unknown one, as not found, and changes nothing", async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    const body = { updated_tags: [] };
    await expect(service.complete({ worker_id: 'w-2', assignment_id: assignmentId, body })).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: `assignment ${assignmentId} not found`,
    });
    await expect(service.flag({ worker_id: 'w-1', assignment_id: 'asgt_x', body: { reason: 'r' } })).rejects.toMatchObject({
      code: ErrorCode.NotFound,
      message: 'assignment asgt_x not found',
    });
    expect(repository.tasks.get('t1')!.state).toBe('IN_PROGRESS');
    expect(repository.events).toHaveLength(0);
  });

  it('refuses an invalid body before touching the task', async () => {
    repository.add(queuedTask({ id: 't1' }));
    const assignmentId = await lease();
    const complete = service.complete({
      worker_id: 'w-1',
      assignment_id: assignmentId,
      body: { updated_tags: [{ value: 'dog', confidence_score: 2 }] },
    });
    await expect(complete).rejects.toMatchObject({ code: ErrorCode.Validation });
    await expect(service.flag({ worker_id: 'w-1', assignment_id: assignmentId, body: { reason: '' } })).rejects.toMatchObject({
      code: ErrorCode.Validation,
      errors: [expect.objectContaining({ field: 'reason' })],
    });
    expect(repository.tasks.get('t1')!.state).toBe('IN_PROGRESS');
  });
});
