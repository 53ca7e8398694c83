import { type Message, type PartitionMetadata, Partitioners } from 'kafkajs';
import { groupMessagesPerPartition } from './kafkajs-partition-grouping';

// kafkajs's own grouping (Jest's module registry is not Node's cache, so this is the original module).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const kafkajsGrouping = require('kafkajs/src/producer/groupMessagesPerPartition') as typeof groupMessagesPerPartition;

const partitionMetadata: PartitionMetadata[] = Array.from({ length: 6 }, (_, partitionId) => ({
  partitionErrorCode: 0,
  partitionId,
  leader: 1,
  replicas: [1],
  isr: [1],
}));
const topic = 'workline.test.grouping.v1';

describe('groupMessagesPerPartition (linear, one hash per run of a key)', () => {
  it("gives kafkajs's partitions, in kafkajs's order, for keyed messages, runs of one key and named partitions", () => {
    const messages = [
      ...Array.from({ length: 1_000 }, (_, n) => ({ key: 'workstream-a', value: `a${n}` })),
      ...Array.from({ length: 300 }, (_, n) => ({ key: `key-${n % 17}`, value: `k${n}` })),
      { key: 'workstream-a', value: 'named', partition: 4 },
      ...Array.from({ length: 50 }, (_, n) => ({ key: Buffer.from(`bytes-${n % 3}`), value: `b${n}` })),
      ...Array.from({ length: 200 }, (_, n) => ({ key: 'workstream-b', value: `b${n}` })),
    ];
    const partitioner = Partitioners.DefaultPartitioner();
    const ours = groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner });
    const theirs = kafkajsGrouping({ topic, partitionMetadata, messages, partitioner });
    expect(ours).toEqual(theirs);
    expect(Object.values(ours).flat()).toHaveLength(messages.length);
  });

  it('asks the partitioner once per run of a key, and for every message without a key', () => {
    const asked: unknown[] = [];
    let next = 0;
    const partitioner = ({ message }: { message: Message }) => {
      asked.push(message);
      return next++ % 3;
    };
    const messages: Message[] = ['a', 'a', null, null, 'a', 'a', 'b'].map((key) => ({ key, value: null }));
    const groups = groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner });
    expect(asked).toEqual([messages[0], messages[2], messages[3], messages[4], messages[6]]);
    expect(groups).toEqual({ 0: [messages[0], messages[1], messages[4], messages[5]], 1: [messages[2], messages[6]], 2: [messages[3]] });
  });

  it('groups nothing when the topic has no partitions known', () => {
    expect(
      groupMessagesPerPartition({ topic, partitionMetadata: [], messages: [{ key: 'a', value: null }], partitioner: () => 0 }),
    ).toEqual({});
  });
});
