/**
 * kafkajs 2.2.4 sorts the messages of a send into partitions with `groupMessagesPerPartition`, which copies a
 * partition's whole array for every message it adds (`[...current, message]`: quadratic in the messages of a
 * partition) and asks the partitioner for every message, which hashes the key with a murmur2 built on Long
 * arithmetic. A CSV import's QC events are about a thousand messages of one key per send: in a CPU profile
 * of the import, the grouping and the hashing were 950 ms of the 7.3 s its QC events cost the service
 * (docs/benchmarks.md, "Event batches in the outbox").
 *
 * groupMessagesPerPartition here gives the same partitions in the same order: each message is appended
 * once, and a message whose key is the one before's (and that names no partition) goes where that one went,
 * since kafkajs's partitioners (default and legacy) place a keyed message by the hash of its key alone.
 *
 * sendMessages takes the function when it loads, which `require('kafkajs')` does: the function is placed in
 * Node's module cache before that, so this module must be imported before anything requires kafkajs (as
 * kafka.settings.ts does, first). Loaded later (a script that required kafkajs first, or Jest, whose module
 * registry is its own), kafkajs keeps its own grouping: the same result, at its cost.
 */
import type { Message, PartitionerArgs, PartitionMetadata } from 'kafkajs';
import { installBeforeLoad } from './kafkajs-modules';

/** What sendMessages hands kafkajs's grouping. */
interface GroupingInput {
  topic: string;
  partitionMetadata: PartitionMetadata[];
  messages: Message[];
  partitioner: (args: PartitionerArgs) => number;
}

export function groupMessagesPerPartition({ topic, partitionMetadata, messages, partitioner }: GroupingInput): Record<number, Message[]> {
  const groups: Record<number, Message[]> = {};
  if (partitionMetadata.length === 0) return groups;
  let lastKey: Message['key'];
  let lastPartition = -1;
  for (const message of messages) {
    const keyed =
      (message.partition === null || message.partition === undefined) && (typeof message.key === 'string' || Buffer.isBuffer(message.key));
    let partition: number;
    if (keyed && lastPartition >= 0 && sameKey(message.key, lastKey)) partition = lastPartition;
    else {
      partition = partitioner({ topic, partitionMetadata, message });
      if (keyed) {
        lastKey = message.key;
        lastPartition = partition;
      } else lastPartition = -1;
    }
    (groups[partition] ??= []).push(message);
  }
  return groups;
}

const sameKey = (a: unknown, b: unknown): boolean => a === b || (Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b));

// Deep paths: kafkajs has no `exports` map.
const GROUPING_MODULE = require.resolve('kafkajs/src/producer/groupMessagesPerPartition');
const SEND_MESSAGES_MODULE = require.resolve('kafkajs/src/producer/sendMessages');

installBeforeLoad(GROUPING_MODULE, groupMessagesPerPartition, SEND_MESSAGES_MODULE);
