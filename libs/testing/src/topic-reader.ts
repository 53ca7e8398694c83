import { createKafka } from '@workline/messaging';
import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { testStack } from './stack';

/** One message of a topic as a consumer sees it: its key, string headers, raw value and parsed JSON value. */
export interface TopicMessage<T> {
  key: string | null;
  headers: Record<string, string>;
  raw: Buffer;
  value: T;
}

/**
 * Everything on `topic` up to its current end, read from the beginning in a consumer group of its own
 * (as an outside consumer of the topic would read it). Resolves once every partition's high watermark
 * at the time of the call has been reached.
 */
export async function readWholeTopic<T>(topic: string, timeoutMs = 60_000): Promise<TopicMessage<T>[]> {
  const kafka = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-topic-reader', instanceId: randomUUID() });
  const admin = kafka.admin();
  await admin.connect();
  const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, Number(p.high)]));
  await admin.disconnect();
  const reached = new Map([...ends].map(([partition, high]) => [partition, high === 0]));
  const messages: TopicMessage<T>[] = [];
  const consumer = kafka.consumer({ groupId: `test-topic-reader-${randomUUID()}` });
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ partition, message }) => {
        const offset = Number(message.offset);
        if (offset >= (ends.get(partition) ?? 0)) return;
        const headers = Object.fromEntries(Object.entries(message.headers ?? {}).map(([name, value]) => [name, String(value)]));
        const raw = message.value ?? Buffer.alloc(0);
        messages.push({ key: message.key?.toString() ?? null, headers, raw, value: JSON.parse(raw.length ? raw.toString('utf8') : 'null') as T });
        if (offset + 1 >= (ends.get(partition) ?? 0)) reached.set(partition, true);
      },
    });
    await eventually(() => [...reached.values()].every(Boolean), { what: `the end of topic ${topic}`, timeoutMs, intervalMs: 200 });
  } finally {
    await consumer.disconnect();
  }
  return messages;
}
