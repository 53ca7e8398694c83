import type { Admin } from 'kafkajs';

export interface LagSample {
  labels: { group: string; topic: string; partition: number };
  value: number;
}

/** A consumer group's lag on its topics: high watermark minus committed offset, per partition (read from Kafka). */
export async function consumerLag(admin: Admin, groupId: string, topics: string[]): Promise<LagSample[]> {
  await admin.connect();
  const committed = await admin.fetchOffsets({ groupId, topics });
  const samples: LagSample[] = [];
  for (const { topic, partitions } of committed) {
    const ends = new Map((await admin.fetchTopicOffsets(topic)).map((p) => [p.partition, p] as const));
    for (const { partition, offset } of partitions) {
      const end = ends.get(partition);
      if (!end) continue;
      const from = Number(offset) >= 0 ? Number(offset) : Number(end.low);
      samples.push({ labels: { group: groupId, topic, partition }, value: Math.max(0, Number(end.high) - from) });
    }
  }
  return samples;
}
