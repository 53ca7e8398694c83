import type { Kafka } from 'kafkajs';
import { DEFAULT_MAX_MESSAGE_BYTES, LIMIT_TTL_MS, recordSize, TopicMessageLimits } from './message-size';

describe('recordSize', () => {
  it('counts each header once, each value of a multi-valued header, and the bytes of UTF-8 text', () => {
    const bare = recordSize({ key: 'k', value: 'v' });
    expect(recordSize({ key: 'k', value: 'v', headers: { ce_id: 'abc' } })).toBe(bare + 10 + 5 + 3);
    expect(recordSize({ key: 'k', value: 'v', headers: { tag: ['x', 'yz'] } })).toBe(bare + (10 + 3 + 1) + (10 + 3 + 2));
    expect(recordSize({ key: 'k', value: 'é', headers: { h: Buffer.from('1234') } })).toBe(bare + 1 + 10 + 1 + 4);
  });
});

describe('TopicMessageLimits', () => {
  it('keeps a limit read from Kafka for its whole TTL even when it equals the default, and never holds a send for a re-read', async () => {
    // The broker's answers to the admin client: one per read, settled by the test.
    const reads: { resolve: (bytes: number) => void }[] = [];
    const producer = new TopicMessageLimits({
      admin: () => {
        let answer!: Promise<number>;
        return {
          connect: () => (answer = new Promise<number>((resolve) => reads.push({ resolve }))).then(() => undefined),
          describeConfigs: async () => ({
            resources: [{ configEntries: [{ configName: 'max.message.bytes', configValue: String(await answer) }] }],
          }),
          disconnect: async () => undefined,
        };
      },
    } as unknown as Pick<Kafka, 'admin'>);
    let now = Date.now();
    const clock = jest.spyOn(Date, 'now').mockImplementation(() => now);
    try {
      const first = producer.maxMessageBytes('t');
      await new Promise((r) => setImmediate(r));
      reads[0].resolve(DEFAULT_MAX_MESSAGE_BYTES);
      await expect(first).resolves.toBe(DEFAULT_MAX_MESSAGE_BYTES);
      now += 60_000;
      await expect(producer.maxMessageBytes('t')).resolves.toBe(DEFAULT_MAX_MESSAGE_BYTES);
      expect(reads).toHaveLength(1);
      // Past the TTL a read starts (and, as while Kafka is away, never ends): sends go on with the known value.
      now += LIMIT_TTL_MS;
      await expect(producer.maxMessageBytes('t')).resolves.toBe(DEFAULT_MAX_MESSAGE_BYTES);
      await expect(producer.maxMessageBytes('t')).resolves.toBe(DEFAULT_MAX_MESSAGE_BYTES);
      expect(reads).toHaveLength(2);
      reads[1].resolve(2_000_000);
      for (let turn = 0; turn < 5; turn++) await new Promise((r) => setImmediate(r));
      await expect(producer.maxMessageBytes('t')).resolves.toBe(2_000_000);
    } finally {
      clock.mockRestore();
    }
  });
});
