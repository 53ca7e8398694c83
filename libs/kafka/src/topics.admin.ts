import { TOPIC_SPECS, type Topic, type TopicSpec } from '@workline/contracts';
import { createKafka, type KafkaSettings } from './kafka.settings';

/** Creates any missing topic; existing ones are left as they are. Safe to run from many instances. */
export async function ensureTopics(settings: KafkaSettings, specs: Partial<Record<Topic | string, TopicSpec>> = TOPIC_SPECS): Promise<string[]> {
  const admin = createKafka(settings).admin();
  await admin.connect();
  try {
    const existing = new Set(await admin.listTopics());
    const missing = Object.entries(specs).filter(([name]) => !existing.has(name)) as [string, TopicSpec][];
    if (missing.length) {
      await admin.createTopics({
        waitForLeaders: true,
        topics: missing.map(([topic, spec]) => ({
          topic,
          numPartitions: spec.partitions,
          replicationFactor: -1,
          configEntries: [{ name: 'retention.ms', value: String(spec.retentionHours * 3_600_000) }],
        })),
      });
    }
    return missing.map(([name]) => name);
  } finally {
    await admin.disconnect();
  }
}
