import 'reflect-metadata';
import { type EventEnvelope, Topic, TOPIC_CATALOG } from '@workline/contracts';
import { adminCreate, eventually, readWholeTopic, type TopicMessage } from '@workline/testing';
import { type CloudEvent, Kafka, type KafkaMessage } from 'cloudevents';
import { randomUUID } from 'node:crypto';

/** What the CloudEvents SDK's Kafka binding makes of a message, as a consumer outside Workline would read it. */
function asCloudEvent(message: TopicMessage<unknown>): CloudEvent<EventEnvelope<unknown>> {
  const received: KafkaMessage<Buffer> = { key: message.key ?? '', value: message.raw, headers: message.headers, body: message.raw };
  return Kafka.toEvent(received) as CloudEvent<EventEnvelope<unknown>>;
}

const DOMAIN_TOPICS = (Object.keys(TOPIC_CATALOG) as Topic[]).filter((topic) => TOPIC_CATALOG[topic].envelope === 'domain-event');

describe('domain events read with the CloudEvents SDK (Kafka binary mode)', () => {
  it('a stored WorkstreamCreated event round-trips: attributes from the headers, the envelope as data', async () => {
    const account = await adminCreate<{ id: string }>('/accounts', { name: `CloudEvents ${randomUUID().slice(0, 6)}` });
    const workstream = await adminCreate<{ id: string; name: string }>('/workstreams', {
      account_id: account.id,
      name: 'CloudEvents',
      use_cases: [],
    });

    // The outbox relay publishes the event shortly after the admin call's commit.
    const message = await eventually(
      async () =>
        (await readWholeTopic<EventEnvelope<{ workstream_id: string }>>(Topic.WorkstreamCreated)).find(
          (m) => m.value.data.workstream_id === workstream.id,
        ),
      { what: `the WorkstreamCreated event of ${workstream.id}`, timeoutMs: 30_000, intervalMs: 500 },
    );
    const event = asCloudEvent(message);
    expect(event.validate()).toBe(true);
    expect(event).toMatchObject({
      specversion: '1.0',
      id: message.value.id,
      type: Topic.WorkstreamCreated,
      source: `/workline/${TOPIC_CATALOG[Topic.WorkstreamCreated].producers[0]}`,
      datacontenttype: 'application/json',
      partitionkey: message.key,
    });
    expect(new Date(event.time!).toISOString()).toBe(new Date(message.value.occurred_at).toISOString());
    expect(event.data).toEqual(message.value);
    expect(event.data).toMatchObject({ data: { workstream_id: workstream.id, account_id: account.id, name: 'CloudEvents' } });
  });

  it('every event an app published on a public domain topic is a valid CloudEvent whose id is its event-id', async () => {
    const problems: string[] = [];
    let read = 0;
    // One reader per topic, all at once: each joins a consumer group of its own, which is most of its time.
    const topics = await Promise.all(
      DOMAIN_TOPICS.map(async (topic) => ({ topic, messages: await readWholeTopic<EventEnvelope<unknown>>(topic) })),
    );
    for (const { topic, messages } of topics) {
      for (const message of messages) {
        // Apps publish domain events only through their outbox, which always sets event-id; other suites
        // also write some topics themselves (e.g. DeliveryRequested, malformed on purpose): not Workline's.
        if (!message.headers['event-id']) continue;
        read++;
        try {
          const event = asCloudEvent(message);
          event.validate();
          if (event.id !== message.headers['event-id'] || event.type !== topic || event.data?.id !== event.id)
            problems.push(`${topic}: ${event.id} does not match its envelope`);
        } catch (error) {
          problems.push(`${topic}: ${(error as Error).message}`);
        }
      }
    }
    expect(read).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
