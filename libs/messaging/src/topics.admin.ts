import { TOPIC_SPECS, type Topic, type TopicSpec } from '@workline/contracts';
import { ConfigResourceTypes } from 'kafkajs';
import { createKafka, type KafkaSettings } from './kafka.settings';

const configEntriesOf = (spec: TopicSpec) => [
  { name: 'retention.ms', value: String(spec.retentionHours * 3_600_000) },
  ...(spec.maxMessageBytes ? [{ name: 'max.message.bytes', value: String(spec.maxMessageBytes) }] : []),
];

/** The topics and reasons of a failed createTopics (kafkajs aggregates them under one "Topic creation errors"). */
function describeTopicErrors(error: unknown): string {
  const inner = (error as { errors?: unknown }).errors;
  if (!Array.isArray(inner) || !inner.length) return error instanceof Error ? error.message : String(error);
  return inner
    .map(
      (each: { topic?: string; type?: string; message?: string }) => `${each.topic ?? '?'}: ${each.type ?? each.message ?? String(each)}`,
    )
    .join('; ');
}

/**
 * Creates any missing topic. Existing ones are left as they are, except that a topic whose spec raises
 * max.message.bytes gets its configuration set again (a topic created before the raise would refuse
 * large messages). Safe to run from many instances.
 */
export async function ensureTopics(
  settings: KafkaSettings,
  specs: Partial<Record<Topic | string, TopicSpec>> = TOPIC_SPECS,
): Promise<string[]> {
  const admin = createKafka(settings).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = Object.entries(specs).filter(([name]) => !existing.has(name)) as [string, TopicSpec][];
    if (missing.length) {
      await admin
        .createTopics({
          waitForLeaders: true,
          topics: missing.map(([topic, spec]) => ({
            topic,
            numPartitions: spec.partitions,
            replicationFactor: -1,
            configEntries: configEntriesOf(spec),
          })),
        })
        .catch((error: unknown) => {
          throw new Error(`creating Kafka topics failed: ${describeTopicErrors(error)}`, { cause: error });
        });
    }
    const large = (Object.entries(specs) as [string, TopicSpec][]).filter(([name, spec]) => existing.has(name) && spec.maxMessageBytes);
    if (large.length) {
      await admin.alterConfigs({
        validateOnly: false,
        resources: large.map(([name, spec]) => ({ type: ConfigResourceTypes.TOPIC, name, configEntries: configEntriesOf(spec) })),
      });
    }
    return missing.map(([name]) => name);
  } finally {
    await admin.disconnect();
  }
}
