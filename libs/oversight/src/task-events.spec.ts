import 'reflect-metadata';
import { buildTaskWebhookEvent, type TaskEventSource } from './task-events';

const task: TaskEventSource = {
  id: 'tsk_1',
  workstreamId: 'ws-1',
  accountId: 'acc-1',
  configurationId: 'cfg-1',
  state: 'COMPLETED',
  existingTags: [{ value: 'cat', confidence_score: 0.5 }],
  updatedTags: [{ value: 'dog', confidence_score: 0.9 }],
  metadata: [{ key: 'k', value: 'v' }],
  error: null,
  callbackUrl: null,
  sealedAuthorization: null,
  sealedApiKey: 'sealed',
};

describe('task webhook events', () => {
  const now = new Date('2026-11-21T10:00:00.000Z');

  it('has exactly the spec fields for a plain configuration', () => {
    const event = buildTaskWebhookEvent(task, { extendedEvents: false, toolProjectId: 'tp' }, now);
    expect(event).toEqual({
      uuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      event_type: 'task.result_available',
      timestamp: '2026-11-21T10:00:00.000Z',
      request_id: 'tsk_1',
      task_id: 'tsk_1',
      diagnostic: { workstream_id: 'ws-1', configuration_id: 'cfg-1', tool_project_id: 'tp' },
    });
  });

  it('adds task_details and metadata with extended_events; errors are task.error', () => {
    const event = buildTaskWebhookEvent(task, { extendedEvents: true, toolProjectId: null }, now);
    expect(event.task_details).toEqual({ state: 'COMPLETED', updated_tags: task.updatedTags, existing_tags: task.existingTags });
    expect(event.metadata).toEqual(task.metadata);
    const failed = buildTaskWebhookEvent(
      { ...task, state: 'ERROR', updatedTags: null, metadata: null },
      { extendedEvents: true, toolProjectId: null },
      now,
    );
    expect(failed.event_type).toBe('task.error');
    expect(failed.task_details).toEqual({ state: 'ERROR', updated_tags: [], existing_tags: task.existingTags });
    expect(failed.metadata).toEqual([]);
    expect(buildTaskWebhookEvent(task, { extendedEvents: false, toolProjectId: null }, now).uuid).not.toBe(event.uuid);
  });
});
