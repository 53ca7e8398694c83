/**
 * `npm run bench:webhooks`: webhook-dispatcher throughput and latency against a loopback receiver, beside a
 * baseline measured in the same run (a bare loop of HTTP POSTs to the same receiver, as many at once as the
 * dispatcher makes). Starts the test stack (test ports: TEST_PORT, TEST_KAFKA_PORT, TEST_DATABASE_URL,
 * TEST_REDIS_URL) with one dispatcher instance. Not part of `npm test`.
 *
 * Scenarios: 0 % and 20 % of the receiver's answers are 500s (a failed attempt is retried after
 * WEBHOOK_RETRY_BASE_MS, 50 ms here, ±10 %). Latency is from the DeliveryRequested event being handed to
 * Kafka to the receiver getting the request it answers with 2xx.
 */
import 'reflect-metadata';
import { BaseEnv, loadEnv } from '@workline/config';
import { type DeliveryRequestedEvent, type EventEnvelope, Topic } from '@workline/contracts';
import { KafkaProducer, type OutgoingMessage } from '@workline/kafka';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require(join(process.cwd(), 'tools/stack/stack.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { profiles } = require(join(process.cwd(), 'tools/stack/profiles.js'));

const N = Number(process.env.BENCH_DELIVERIES ?? 2000);
const CONCURRENCY = 32; // the dispatcher's default WEBHOOK_CONCURRENCY
const RETRY_BASE_MS = 50;

interface Receiver {
  url: string;
  failRate: number;
  /** delivery id → time of the 2xx-answered request */
  succeeded: Map<string, number>;
  /** delivery id → called on its 2xx-answered request */
  waiters: Map<string, () => void>;
  requests: number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', failRate: 0, succeeded: new Map(), waiters: new Map(), requests: 0, close: async () => undefined };
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.requests++;
      if (Math.random() < receiver.failRate) return void res.writeHead(500).end('no');
      const id = req.headers['x-svc-delivery-id'];
      if (typeof id === 'string' && !receiver.succeeded.has(id)) receiver.succeeded.set(id, Date.now());
      res.writeHead(200).end('ok');
      if (typeof id === 'string') receiver.waiters.get(id)?.();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  receiver.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
  receiver.close = () => {
    server.closeAllConnections();
    return new Promise((resolve) => server.close(() => resolve()));
  };
  return receiver;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};

interface Figures {
  name: string;
  perSecond: number;
  p50: number;
  p99: number;
  requests: number;
}

/** One bare POST (a new connection, like the dispatcher's); resolves with the status. */
const postTo = (receiver: Receiver, id: string, body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(receiver.url, { method: 'POST', agent: false, headers: { 'content-type': 'application/json', 'x-svc-delivery-id': id } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });

/** The baseline: a bare loop of POSTs (new connection each, like the dispatcher), CONCURRENCY at once. */
async function baseline(receiver: Receiver, failRate: number): Promise<Figures> {
  receiver.failRate = failRate;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const body = JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available' });
  const latencies: number[] = [];
  let next = 0;
  const started = Date.now();
  const post = (id: string) => postTo(receiver, id, body);
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < N) {
        const id = `base-${next++}`;
        const at = Date.now();
        // Like the dispatcher, a failed POST is made again until it succeeds (without the wait).
        while ((await post(id)) !== 200);
        latencies.push(Date.now() - at);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  return { name: `baseline, ${failRate * 100}% failing`, perSecond: N / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: receiver.requests };
}

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);

function deliveryEvent(receiver: Receiver, sealed: string, i: number, deliveryId = `bench-${randomUUID()}`): EventEnvelope<DeliveryRequestedEvent> {
  const data: DeliveryRequestedEvent = {
    delivery_id: deliveryId,
    owner: { account_id: 'bench', workstream_id: 'bench' },
    subject: { task_id: `task-${i}` },
    event_type: 'task.result_available',
    url: receiver.url,
    body: JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available', task_id: `task-${i}` }),
    signing: 'x-svc-signature',
    sealed_secret: sealed,
  };
  return { id: randomUUID(), type: Topic.DeliveryRequested, occurred_at: new Date().toISOString(), data };
}

/** Unloaded latency: one delivery at a time, each waiting for its receipt (0 % failing). */
async function oneAtATime(receiver: Receiver, send: (i: number, id: string) => Promise<void>, name: string): Promise<Figures> {
  receiver.failRate = 0;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 0; i < SEQUENTIAL; i++) {
    const id = `one-${randomUUID()}`;
    const received = new Promise<void>((resolve) => receiver.waiters.set(id, resolve));
    const at = Date.now();
    await send(i, id);
    await received;
    receiver.waiters.delete(id);
    latencies.push(Date.now() - at);
  }
  return { name, perSecond: SEQUENTIAL / ((Date.now() - started) / 1000), p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: receiver.requests };
}

async function dispatcher(receiver: Receiver, producer: KafkaProducer, box: SecretBox, failRate: number, count = N): Promise<Figures> {
  receiver.failRate = failRate;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const sealed = box.seal('wlk_bench_key');
  const sentAt = new Map<string, number>();
  const started = Date.now();
  for (let from = 0; from < count; from += 250) {
    const batch: OutgoingMessage[] = [];
    const ids: string[] = [];
    for (let i = from; i < Math.min(count, from + 250); i++) {
      const envelope = deliveryEvent(receiver, sealed, i);
      batch.push({ key: envelope.data.delivery_id, value: envelope });
      ids.push(envelope.data.delivery_id);
    }
    const at = Date.now();
    for (const id of ids) sentAt.set(id, at);
    await producer.send(Topic.DeliveryRequested, batch);
  }
  const deadline = Date.now() + 600_000;
  while (receiver.succeeded.size < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  if (receiver.succeeded.size < count) throw new Error(`only ${receiver.succeeded.size} of ${count} deliveries arrived`);
  const seconds = (Math.max(...receiver.succeeded.values()) - started) / 1000;
  const latencies = [...sentAt].map(([id, at]) => receiver.succeeded.get(id)! - at);
  return { name: `dispatcher, ${failRate * 100}% failing`, perSecond: count / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), requests: receiver.requests };
}

async function main(): Promise<void> {
  const stack = await startStack(profiles.test, {
    quietApps: true,
    extraEnv: {
      ADMIN_TOKEN: 'bench-admin-token-0123456789abcdef',
      LOG_LEVEL: 'warn',
      KAFKAJS_NO_PARTITIONER_WARNING: '1',
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS),
      WEBHOOK_POLL_MS: '100',
    },
  });
  const receiver = await startReceiver();
  const producer = new KafkaProducer({ brokers: stack.env.KAFKA_BROKERS.split(','), app: 'bench', instanceId: randomUUID().slice(0, 8) });
  const box = new SecretBox(loadEnv(BaseEnv, stack.env).secretsKey);
  try {
    // Warm-up: connections, JIT, the dispatcher's first claims.
    await dispatcher(receiver, producer, box, 0, 200);
    const rows: [Figures, Figures][] = [];
    for (const failRate of [0, 0.2]) rows.push([await baseline(receiver, failRate), await dispatcher(receiver, producer, box, failRate)]);
    const sealed = box.seal('wlk_bench_key');
    const sequential: [Figures, Figures] = [
      await oneAtATime(receiver, (i, id) => postTo(receiver, id, JSON.stringify({ i })).then(() => undefined), 'baseline, one at a time'),
      await oneAtATime(
        receiver,
        (i, id) => producer.send(Topic.DeliveryRequested, [{ key: id, value: deliveryEvent(receiver, sealed, i, id) }]),
        'dispatcher, one at a time',
      ),
    ];
    rows.push(sequential);
    console.log(`\nwebhook delivery, ${N} deliveries per loaded scenario (${SEQUENTIAL} one at a time), 1 dispatcher instance (concurrency ${CONCURRENCY}), retry base ${RETRY_BASE_MS} ms\n`);
    console.log('scenario                      deliveries/s   p50 ms   p99 ms   POSTs');
    for (const [base, disp] of rows) {
      for (const f of [base, disp]) console.log(`${f.name.padEnd(30)}${f.perSecond.toFixed(0).padStart(12)}${String(f.p50).padStart(9)}${String(f.p99).padStart(9)}${String(f.requests).padStart(8)}`);
      console.log(
        `  ratio dispatcher/baseline: throughput ${(disp.perSecond / base.perSecond).toFixed(3)}, p50 ${(disp.p50 / Math.max(1, base.p50)).toFixed(1)}x, p99 ${(disp.p99 / Math.max(1, base.p99)).toFixed(1)}x`,
      );
    }
  } finally {
    await producer.onApplicationShutdown();
    await receiver.close();
    await stack.stop();
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
