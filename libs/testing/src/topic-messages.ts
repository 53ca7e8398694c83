import { createKafka } from '@workline/messaging';
import { randomUUID } from 'node:crypto';
import { testStack } from './stack';

/**
 * The sizes (bytes of value) of the messages written to `topic` of the test stack since `since` (epoch ms),
 * read from Kafka itself: e.g. to check that no large answer went over the shared reply topic.
 */
export async function messageSizesSince(topic: string, since: number, timeoutMs = 20_000): Promise<number[]> {
  const kafka = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-topic-reader', instanceId: randomUUID().slice(0, 8) });
  const admin = kafka.admin();
  await admin.connect();
  let ranges: { partition: number; from: number; to: number }[];
  try {
    const [starts, ends] = await Promise.all([admin.fetchTopicOffsetsByTimestamp(topic, since), admin.fetchTopicOffsets(topic)]);
    const end = new Map(ends.map((e) => [e.partition, Number(e.high)]));
    ranges = starts.map((s) => ({ partition: s.partition, from: Number(s.offset), to: end.get(s.partition) ?? 0 })).filter((r) => r.from < r.to);
  } finally {
    await admin.disconnect();
  }
  if (!ranges.length) return [];
  const consumer = kafka.consumer({ groupId: `test-topic-reader-${randomUUID()}` });
  const sizes: number[] = [];
  const left = new Set(ranges.map((r) => r.partition));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${topic}: partitions ${[...left].join(', ')} not read within ${timeoutMs} ms`)), timeoutMs);
      void consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const range = ranges.find((r) => r.partition === partition);
          const offset = Number(message.offset);
          if (!range || offset < range.from || offset >= range.to) return;
          sizes.push(message.value?.length ?? 0);
          if (offset === range.to - 1) left.delete(partition);
          if (!left.size) {
            clearTimeout(timer);
            resolve();
          }
        },
      });
    });
    for (const { partition, from } of ranges) consumer.seek({ topic, partition, offset: String(from) });
    await done;
  } finally {
    await consumer.disconnect();
  }
  return sizes;
}
