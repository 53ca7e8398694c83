import { Topic } from '@workline/contracts';
import { createKafka, RpcHeader, type RpcReply } from '@workline/messaging';
import { REQUEST_ID_KAFKA_HEADER } from '@workline/observability';
import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { testStack } from './stack';

/** One message of a topic as a consumer sees it: its key, string headers, raw value and parsed JSON value. */
export interface TopicMessage<T> {
  key: string | null;
  headers: Record<string, string>;
  raw: Buffer;
  /** The value parsed as JSON on first use (a raw value that is not JSON throws only when read). */
  readonly value: T;
}

export interface TopicReadOptions {
  /** Read only what was written at or after this time (epoch ms); default: from the beginning. */
  since?: number;
  timeoutMs?: number;
}

function topicMessage<T>(key: Buffer | null, rawHeaders: Record<string, unknown> | undefined, raw: Buffer): TopicMessage<T> {
  const headers = Object.fromEntries(Object.entries(rawHeaders ?? {}).map(([name, value]) => [name, String(value)]));
  let parsed: { value: T } | undefined;
  return {
    key: key?.toString() ?? null,
    headers,
    raw,
    get value(): T {
      parsed ??= { value: JSON.parse(raw.length ? raw.toString('utf8') : 'null') as T };
      return parsed.value;
    },
  };
}

/**
 * What `topic` of the test stack holds up to its current end (every partition's high watermark at the time
 * of the call), read as an outside consumer would: a consumer group of its own, offsets never committed.
 */
export async function readWholeTopic<T>(topic: string, { since, timeoutMs = 60_000 }: TopicReadOptions = {}): Promise<TopicMessage<T>[]> {
  const kafka = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-topic-reader', instanceId: randomUUID().slice(0, 8) });
  const admin = kafka.admin();
  await admin.connect();
  let ranges: { partition: number; from: number; to: number }[];
  try {
    const [starts, ends] = await Promise.all([
      since === undefined ? Promise.resolve(undefined) : admin.fetchTopicOffsetsByTimestamp(topic, since),
      admin.fetchTopicOffsets(topic),
    ]);
    const start = new Map((starts ?? []).map((s) => [s.partition, Number(s.offset)]));
    ranges = ends
      .map((e) => ({ partition: e.partition, from: start.get(e.partition) ?? Number(e.low), to: Number(e.high) }))
      .filter((r) => r.from < r.to);
  } finally {
    await admin.disconnect();
  }
  if (!ranges.length) return [];
  const consumer = kafka.consumer({ groupId: `test-topic-reader-${randomUUID()}` });
  const messages: TopicMessage<T>[] = [];
  const left = new Set(ranges.map((r) => r.partition));
  await consumer.connect();
  try {
    await consumer.subscribe({ topic, fromBeginning: true });
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${topic}: partitions ${[...left].join(', ')} not read to their end within ${timeoutMs} ms`)),
        timeoutMs,
      );
      void consumer.run({
        autoCommit: false,
        eachMessage: async ({ partition, message }) => {
          const range = ranges.find((r) => r.partition === partition);
          const offset = Number(message.offset);
          if (!range || offset < range.from || offset >= range.to) return;
          messages.push(topicMessage<T>(message.key, message.headers, message.value ?? Buffer.alloc(0)));
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
  return messages;
}

/**
 * The sizes (bytes of value) of the replies, on the shared reply topic, to the RPCs that the gateway sent on
 * `rpcTopic` since `since` (epoch ms) for the HTTP request with id `requestId` (its X-Request-Id): e.g. that a
 * large answer did not go over the topic every gateway reads. Other files' replies, running meanwhile, are
 * not counted.
 */
export async function replySizesOfRequest(rpcTopic: string, requestId: string, since: number, timeoutMs = 20_000): Promise<number[]> {
  const requests = await rpcRequestsOf(rpcTopic, requestId, since, timeoutMs);
  const correlations = new Set(requests.map((message) => message.headers[RpcHeader.CorrelationId]));
  const replies = await readWholeTopic(Topic.RpcReplies, { since, timeoutMs });
  return replies.filter((message) => correlations.has(message.headers[RpcHeader.CorrelationId])).map((message) => message.raw.length);
}

/** The RPC requests that the gateway put on `rpcTopic` since `since` for the HTTP request with id `requestId`. */
async function rpcRequestsOf(rpcTopic: string, requestId: string, since: number, timeoutMs: number): Promise<TopicMessage<unknown>[]> {
  return (await readWholeTopic(rpcTopic, { since, timeoutMs })).filter((message) => message.headers[REQUEST_ID_KAFKA_HEADER] === requestId);
}

/**
 * Replays the one RPC request that the gateway put on `rpcTopic` since `since` for the HTTP request with id
 * `requestId`: sent again as it was (key, value, headers, so the same correlation id and deadline), as the
 * next owner of its partition reads it after a service crashed before committing the offset
 * (docs/decisions.md, "RPC topics"). Resolves with the replies to it, in order, once there are two: the one
 * the gateway answered the client with, and the replay's.
 */
export async function replayRpcRequest(rpcTopic: string, requestId: string, since: number, timeoutMs = 30_000): Promise<RpcReply[]> {
  const requests = await rpcRequestsOf(rpcTopic, requestId, since, timeoutMs);
  if (requests.length !== 1) throw new Error(`${requests.length} requests on ${rpcTopic} for request id ${requestId}, expected 1`);
  const [request] = requests;
  const correlationId = request.headers[RpcHeader.CorrelationId];
  const producer = createKafka({
    brokers: testStack().kafkaBrokers,
    app: 'test-rpc-replay',
    instanceId: randomUUID().slice(0, 8),
  }).producer();
  await producer.connect();
  try {
    await producer.send({ topic: rpcTopic, messages: [{ key: request.key, value: request.raw, headers: request.headers }] });
  } finally {
    await producer.disconnect();
  }
  return eventually(
    async () => {
      const replies = (await readWholeTopic<RpcReply>(Topic.RpcReplies, { since, timeoutMs })).filter(
        (message) => message.headers[RpcHeader.CorrelationId] === correlationId,
      );
      return replies.length >= 2 ? replies.map((reply) => reply.value) : undefined;
    },
    { what: `two replies to the replayed request ${correlationId}`, timeoutMs, intervalMs: 300 },
  );
}

type Consumer = ReturnType<ReturnType<typeof createKafka>['consumer']>;

/**
 * Every message written to `topics` from `since` on (epoch ms, default: when it starts), read while a suite
 * runs, as an outside consumer would: a consumer group of its own, offsets never committed. For a suite that
 * waits for the events of what it does, where readWholeTopic would read each topic again for every wait.
 */
export class TopicWatcher {
  private readonly seen: { topic: string; message: TopicMessage<unknown> }[] = [];

  private constructor(private readonly consumer: Consumer) {}

  static async start(topics: readonly string[], since = Date.now()): Promise<TopicWatcher> {
    const kafka = createKafka({ brokers: testStack().kafkaBrokers, app: 'test-topic-watcher', instanceId: randomUUID().slice(0, 8) });
    const admin = kafka.admin();
    await admin.connect();
    let starts: { topic: string; partition: number; offset: string }[];
    try {
      starts = (
        await Promise.all(
          topics.map(async (topic) =>
            (await admin.fetchTopicOffsetsByTimestamp(topic, since)).map(({ partition, offset }) => ({ topic, partition, offset })),
          ),
        )
      ).flat();
    } finally {
      await admin.disconnect();
    }
    const consumer = kafka.consumer({ groupId: `test-topic-watcher-${randomUUID()}` });
    const watcher = new TopicWatcher(consumer);
    await consumer.connect();
    await consumer.subscribe({ topics: [...topics], fromBeginning: true });
    const from = new Map(starts.map((s) => [`${s.topic}/${s.partition}`, Number(s.offset)]));
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ topic, partition, message }) => {
        if (Number(message.offset) < (from.get(`${topic}/${partition}`) ?? 0)) return;
        watcher.seen.push({ topic, message: topicMessage(message.key, message.headers, message.value ?? Buffer.alloc(0)) });
      },
    });
    for (const { topic, partition, offset } of starts) consumer.seek({ topic, partition, offset });
    return watcher;
  }

  /** What `topic` has received so far, in order per partition. */
  messages<T>(topic: string): TopicMessage<T>[] {
    return this.seen.filter((seen) => seen.topic === topic).map((seen) => seen.message as TopicMessage<T>);
  }

  stop(): Promise<void> {
    return this.consumer.disconnect();
  }
}
