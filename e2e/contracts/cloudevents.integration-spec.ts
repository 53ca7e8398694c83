import 'reflect-metadata';
import { createWorklineClient } from '@workline/client';
import { type EventEnvelope, Topic, TOPIC_CATALOG } from '@workline/contracts';
import {
  completeTask,
  createImageTask,
  createOversightTenant,
  DeliveryRequester,
  eventually,
  flagTask,
  leaseTask,
  LoopbackReceiver,
  newWorkerToken,
  readWholeTopic,
  inTurnOn,
  testStack,
  type TopicMessage,
} from '@workline/testing';
import { type CloudEvent, Kafka, type KafkaMessage } from 'cloudevents';
import { randomUUID } from 'node:crypto';

/** What the CloudEvents SDK's Kafka binding makes of a message, as a consumer outside Workline would read it. */
function asCloudEvent<T>(message: TopicMessage<unknown>): CloudEvent<T> {
  const received: KafkaMessage<Buffer> = { key: message.key ?? '', value: message.raw, headers: message.headers, body: message.raw };
  return Kafka.toEvent(received) as CloudEvent<T>;
}

const PUBLIC_TOPICS = (Object.keys(TOPIC_CATALOG) as Topic[]).filter((topic) => TOPIC_CATALOG[topic].audience === 'public');

/**
 * Every public topic read with the `cloudevents` SDK (Kafka binary mode), as a consumer outside Workline
 * would: the test causes an event on each through the API (and a dead letter with a message no handler can
 * take), then reads it back as a CloudEvent and checks it round-trips against what was sent and stored.
 */
describe('every public topic read with the CloudEvents SDK (Kafka binary mode)', () => {
  const since = Date.now();
  const suffix = randomUUID().slice(0, 8);
  const receiver = new LoopbackReceiver();
  const requester = new DeliveryRequester();
  const admin = createWorklineClient(testStack().gatewayUrl, { bearer: testStack().adminToken });
  /** The CloudEvent of each public topic this test caused, with what it was checked against. */
  const caused = new Map<Topic, CloudEvent<unknown>>();

  beforeAll(() => receiver.start());
  afterAll(async () => {
    await requester.close();
    await receiver.stop();
  });

  /** The CloudEvent on `topic` since the test started that `mine` picks, once it is there. */
  async function eventOn<T>(topic: Topic, mine: (event: CloudEvent<T>) => boolean, what: string): Promise<CloudEvent<T>> {
    const event = await eventually(
      async () => (await readWholeTopic(topic, { since })).map((message) => asCloudEvent<T>(message)).find(mine),
      { what, timeoutMs: 60_000, intervalMs: 500 },
    );
    expect(event.validate()).toBe(true);
    expect(event.specversion).toBe('1.0');
    caused.set(topic, event as CloudEvent<unknown>);
    return event;
  }

  const producerSource = (topic: Topic) => `/workline/${TOPIC_CATALOG[topic].producers[0]}`;

  it('WorkstreamCreated and QualityReviewForQc: the admin API and a quality record under the threshold', async () => {
    const account = await admin.POST('/admin/v1/accounts', { body: { name: `CloudEvents ${suffix}` } });
    const body = {
      account_id: account.data!.id,
      name: `CloudEvents ${suffix}`,
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1'] }],
      qc_score_threshold: 0.5,
    };
    const workstream = (await admin.POST('/admin/v1/workstreams', { body })).data!;
    const created = await eventOn<EventEnvelope<Record<string, unknown>>>(
      Topic.WorkstreamCreated,
      (e) => e.data?.data.workstream_id === workstream.id,
      `the WorkstreamCreated event of ${workstream.id}`,
    );
    expect(created).toMatchObject({
      type: Topic.WorkstreamCreated,
      source: producerSource(Topic.WorkstreamCreated),
      datacontenttype: 'application/json',
      partitionkey: workstream.id,
    });
    expect(created.id).toBe(created.data?.id);
    expect(new Date(created.time!).toISOString()).toBe(new Date(created.data!.occurred_at).toISOString());
    expect(created.data?.data).toEqual({
      workstream_id: workstream.id,
      account_id: account.data!.id,
      name: body.name,
      use_cases: body.use_cases,
      created_at: expect.any(String),
    });
    expect(Date.parse(created.data!.data.created_at as string)).toBe(Date.parse(workstream.created_at));

    const { key } = (
      await admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { params: { path: { workstream_id: workstream.id } }, body: {} })
    ).data!;
    const record = {
      workstream_id: workstream.id,
      use_case_id: 'uc-1',
      task_definition_id: 'td-1',
      unique_id: `qc-${suffix}`,
      worker_id: 'ann@example.com',
      review_completed_at: '2026-11-29T12:00:00.000Z',
      review_score: 0.2,
    };
    const api = createWorklineClient(testStack().gatewayUrl, { apiKey: key });
    const stored = await api.POST('/v1/workstreams/{workstream_id}/task_reviewed', {
      params: { path: { workstream_id: workstream.id } },
      body: record,
    });
    expect(stored.response.status).toBe(202);
    const forQc = await eventOn<EventEnvelope<{ workstream_id: string; reason: string; record: Record<string, unknown> }>>(
      Topic.QualityReviewForQc,
      (e) => e.data?.data.record.unique_id === record.unique_id,
      'the QC event of the record',
    );
    expect(forQc).toMatchObject({
      type: Topic.QualityReviewForQc,
      source: producerSource(Topic.QualityReviewForQc),
      partitionkey: workstream.id,
    });
    expect(forQc.data?.data).toMatchObject({
      workstream_id: workstream.id,
      account_id: account.data!.id,
      reason: 'below_threshold',
      outcome: 'stored',
    });
    const { workstream_id: _inPath, ...fields } = record;
    expect(forQc.data?.data.record).toMatchObject(fields);
  });

  it('TaskResultAvailable, TaskError and DeliveryDead: a task completed, a task flagged whose webhook always fails', async () => {
    const tenant = await createOversightTenant(`CloudEvents tasks ${suffix}`);
    const hook = `/hook-${suffix}`;
    receiver.respond(hook, () => ({ status: 500, body: 'down for good' }));
    const token = await newWorkerToken();
    // Its tasks are created and leased from the one queue in a turn of its own (leasing flags what other files left
    // there); the events they cause are waited for after it.
    const { completed, flagged } = await inTurnOn('oversight task queue', async () => {
      const completed = await createImageTask(tenant);
      const flagged = await createImageTask(tenant, { callbackUrl: receiver.url(hook) });
      const first = await leaseTask(token, completed.taskId);
      const tags = { updated_tags: [{ value: 'receipt', confidence_score: 0.9 }] };
      expect((await completeTask(token, first.assignment_id, tags)).status).toBe(200);
      const second = await leaseTask(token, flagged.taskId);
      expect((await flagTask(token, second.assignment_id, `blank ${suffix}`)).status).toBe(200);
      return { completed, flagged };
    });
    const result = await eventOn<EventEnvelope<{ task_id: string; state: string; event: Record<string, unknown> }>>(
      Topic.TaskResultAvailable,
      (e) => e.data?.data.task_id === completed.taskId,
      'the result event of the completed task',
    );
    expect(result).toMatchObject({
      type: Topic.TaskResultAvailable,
      source: producerSource(Topic.TaskResultAvailable),
      partitionkey: completed.taskId,
    });
    const status = await createWorklineClient(testStack().gatewayUrl, { apiKey: tenant.key }).GET('/v1/tasks/{id}', {
      params: { path: { id: completed.taskId } },
    });
    expect(result.data?.data).toMatchObject({ account_id: tenant.accountId, workstream_id: tenant.workstreamId, state: 'COMPLETED' });
    expect(result.data?.data.event).toMatchObject({ event_type: 'task.result_available', task_id: completed.taskId });
    expect(status.data).toMatchObject({ state: 'COMPLETED', result: { updated_tags: [{ value: 'receipt', confidence_score: 0.9 }] } });

    const error = await eventOn<EventEnvelope<{ task_id: string; state: string; error: string }>>(
      Topic.TaskError,
      (e) => e.data?.data.task_id === flagged.taskId,
      'the error event of the flagged task',
    );
    expect(error).toMatchObject({ type: Topic.TaskError, source: producerSource(Topic.TaskError), partitionkey: flagged.taskId });
    expect(error.data?.data).toMatchObject({
      workstream_id: tenant.workstreamId,
      state: 'ERROR',
      error: `flagged by the worker: blank ${suffix}`,
    });

    // The task.error webhook meets a receiver that always answers 500: after its last retry the delivery is dead.
    const dead = await eventOn<EventEnvelope<{ delivery_id: string; url: string; subject: { task_id?: string }; attempts: number }>>(
      Topic.DeliveryDead,
      (e) => e.data?.data.subject.task_id === flagged.taskId,
      'the DeliveryDead event of the webhook',
    );
    expect(dead).toMatchObject({ type: Topic.DeliveryDead, source: producerSource(Topic.DeliveryDead) });
    expect(dead.partitionkey).toBe(dead.data?.data.delivery_id);
    expect(dead.data?.data).toMatchObject({ url: receiver.url(hook), event_type: 'task.error', last_error: 'HTTP 500' });
    expect(receiver.on(hook)).toHaveLength(dead.data!.data.attempts);
    const delivery = await createWorklineClient(testStack().gatewayUrl, { apiKey: tenant.key }).GET('/v1/deliveries/{id}', {
      params: { path: { id: dead.data!.data.delivery_id } },
    });
    expect(delivery.data).toMatchObject({ status: 'dead', attempt_count: dead.data!.data.attempts, task_id: flagged.taskId });
  });

  it('DeadLetter: a message no handler can take is a CloudEvent of its own, whose data is the message as it was sent', async () => {
    const bad = `bad-${suffix}`;
    const sentId = await requester.publish({ delivery_id: bad, url: 'not a url', signing: 'sometimes' }, bad);
    const letter = await eventOn<EventEnvelope<{ delivery_id: string }>>(
      Topic.DeadLetter,
      (e) => e.subject === Topic.DeliveryRequested && e.data?.data?.delivery_id === bad,
      'the dead letter of the bad delivery request',
    );
    expect(letter).toMatchObject({
      type: Topic.DeadLetter,
      source: '/workline/webhook-dispatcher',
      subject: Topic.DeliveryRequested,
      datacontenttype: 'application/json',
      partitionkey: bad,
    });
    expect(letter.id).not.toBe(sentId);
    expect(letter.data).toEqual({
      id: sentId,
      type: Topic.DeliveryRequested,
      occurred_at: expect.any(String),
      data: { delivery_id: bad, url: 'not a url', signing: 'sometimes' },
    });
    const [message] = (await readWholeTopic(Topic.DeadLetter, { since })).filter((m) => m.headers.ce_id === letter.id);
    expect(message.headers).toMatchObject({
      'dlq-original-topic': Topic.DeliveryRequested,
      'dlq-consumer-group': 'workline-webhook-dispatcher',
      'dlq-error': expect.stringMatching(/^VALIDATION: Invalid request: /),
    });
    expect(Date.parse(message.headers['dlq-failed-at'])).toBe(Date.parse(letter.time!));
  });

  it('caused an event on every public topic, and every message an app wrote on one is a valid CloudEvent', async () => {
    expect([...caused.keys()].sort()).toEqual([...PUBLIC_TOPICS].sort());
    const problems: string[] = [];
    // One reader per topic, all at once: each joins a consumer group of its own, which is most of its time.
    const topics = await Promise.all(PUBLIC_TOPICS.map(async (topic) => ({ topic, messages: await readWholeTopic<unknown>(topic) })));
    for (const { topic, messages } of topics) {
      for (const message of messages) {
        // Apps publish domain events only through their outbox, which always sets event-id; other suites also
        // write some topics themselves: not Workline's. Every dead letter is an app's.
        if (TOPIC_CATALOG[topic].envelope === 'domain-event' && !message.headers['event-id']) continue;
        try {
          const event = asCloudEvent<EventEnvelope<unknown>>(message);
          event.validate();
          const own =
            TOPIC_CATALOG[topic].envelope === 'dead-letter' || (event.id === message.headers['event-id'] && event.data?.id === event.id);
          if (event.type !== topic || !own) problems.push(`${topic}: ${event.id} does not match its envelope`);
        } catch (error) {
          problems.push(`${topic}: ${(error as Error).message}`);
        }
      }
    }
    expect(problems).toEqual([]);
  });
});
