/**
 * The webhook-delivery measures (bench/webhook-delivery.ts and bench/all.ts): a loopback receiver, the
 * bare POST loop that is their baseline, and the dispatcher fed DeliveryRequested events through Kafka.
 * Latency is from the event being handed to Kafka (or the POST loop starting a delivery) to the receiver
 * getting the request it answers with 2xx.
 */
import { type DeliveryRequestedEvent, type EventEnvelope, Topic } from '@workline/contracts';
import type { KafkaProducer, OutgoingMessage } from '@workline/messaging';
import type { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { type Figures, percentile } from './common';

/** Attempts one dispatcher instance makes at once (WEBHOOK_CONCURRENCY, passed on to it); the new-connection POST loop's too. */
export const CONCURRENCY = Number(process.env.WEBHOOK_CONCURRENCY ?? 32);
/**
 * Attempts one dispatcher instance makes at once to one origin (WEBHOOK_ORIGIN_CONCURRENCY, passed on to
 * it), on keep-alive connections: the keep-alive POST loops' connection policy, the dispatcher's own.
 */
export const ORIGIN_CONCURRENCY = Number(process.env.WEBHOOK_ORIGIN_CONCURRENCY ?? 8);
/** Paced arrivals: events per second (BENCH_WEBHOOK_RATE) for BENCH_WEBHOOK_SECONDS. */
export const PACED_RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 1000);
export const PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 10);
/**
 * Seconds of paced arrivals right after the warm-up burst, before any measured scenario
 * (BENCH_WEBHOOK_WARMUP_SECONDS). The first seconds of a fresh dispatcher's first paced load run
 * unoptimised code (V8 compiles the intake, claim and attempt paths as they get hot): measured on a quiet
 * machine, its attempts took 3–4x as long as a second later and a backlog of ~300 ms formed, which then
 * dominated the p99 of a 10 s paced run. A long-running dispatcher is past that; the figures of this phase
 * are still printed, as the cold start.
 */
export const WARMUP_PACED_SECONDS = Number(process.env.BENCH_WEBHOOK_WARMUP_SECONDS ?? 3);
/** Retry base of the dispatcher under bench: short, so a failing scenario ends in seconds. */
export const RETRY_BASE_MS = 50;
/** What the dispatcher of a bench stack runs with. */
export const DISPATCHER_ENV = { WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS), WEBHOOK_POLL_MS: '100' };

export interface Receiver {
  url: string;
  failRate: number;
  /** delivery id → time of the 2xx-answered request */
  succeeded: Map<string, number>;
  /** delivery id → called on its 2xx-answered request */
  waiters: Map<string, () => void>;
  requests: number;
  close(): Promise<void>;
}

/**
 * Failures in a row one delivery may get at most: a random 20 % failing receiver would otherwise kill one
 * delivery in 3,125 (five 500s in a row: dead), and the run would wait for it for ever.
 */
const MAX_FAILURES_PER_DELIVERY = 3;

export async function startReceiver(): Promise<Receiver> {
  const receiver: Receiver = { url: '', failRate: 0, succeeded: new Map(), waiters: new Map(), requests: 0, close: async () => undefined };
  const failures = new Map<string, number>();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      receiver.requests++;
      const id = req.headers['x-svc-delivery-id'];
      const failed = typeof id === 'string' ? (failures.get(id) ?? 0) : 0;
      if (failed < MAX_FAILURES_PER_DELIVERY && Math.random() < receiver.failRate) {
        if (typeof id === 'string') failures.set(id, failed + 1);
        return void res.writeHead(500).end('no');
      }
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

export interface WebhookFigures extends Figures {
  name: string;
  /** POSTs the receiver got (retries included) */
  requests: number;
}

const POST_HEADERS = { 'content-type': 'application/json' };

/** One bare POST on a new connection; resolves with the status. */
export const postTo = (receiver: Receiver, id: string, body: string) =>
  new Promise<number>((resolve, reject) => {
    const req = request(receiver.url, { method: 'POST', agent: false, headers: { ...POST_HEADERS, 'x-svc-delivery-id': id } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });

/** Keep-alive connections to the receiver, at most ORIGIN_CONCURRENCY: the dispatcher's connection policy. */
export function keepAlivePool(receiver: Receiver): Pool {
  return new Pool(new URL(receiver.url).origin, { connections: ORIGIN_CONCURRENCY, pipelining: 1 });
}

/** One bare POST on a pooled keep-alive connection; resolves with the status. */
async function postPooled(pool: Pool, receiver: Receiver, id: string, body: string): Promise<number> {
  const { statusCode, body: answer } = await pool.request({
    path: new URL(receiver.url).pathname,
    method: 'POST',
    headers: { ...POST_HEADERS, 'x-svc-delivery-id': id },
    body,
  });
  await answer.dump();
  return statusCode;
}

/**
 * The burst baseline: a bare loop of POSTs, each delivery posted again until it is answered 2xx (like the
 * dispatcher, without the wait). `keepAlive` false: a new connection per POST, CONCURRENCY at once (the
 * dispatcher's policy before keep-alive); true: the dispatcher's policy now, ORIGIN_CONCURRENCY at once on
 * kept-alive connections.
 */
export async function postLoop(receiver: Receiver, failRate: number, n: number, keepAlive = false): Promise<WebhookFigures> {
  receiver.failRate = failRate;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const body = JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available' });
  const latencies: number[] = [];
  let next = 0;
  const pool = keepAlive ? keepAlivePool(receiver) : undefined;
  const post = (id: string) => (pool ? postPooled(pool, receiver, id, body) : postTo(receiver, id, body));
  const started = Date.now();
  await Promise.all(
    Array.from({ length: keepAlive ? ORIGIN_CONCURRENCY : CONCURRENCY }, async () => {
      while (next < n) {
        const id = `base-${next++}`;
        const at = Date.now();
        while ((await post(id)) !== 200);
        latencies.push(Date.now() - at);
      }
    }),
  );
  const seconds = (Date.now() - started) / 1000;
  await pool?.close();
  const policy = keepAlive ? `keep-alive, ${ORIGIN_CONCURRENCY} at once` : `new connection each, ${CONCURRENCY} at once`;
  return {
    name: `baseline, ${policy}, ${failRate * 100}% failing`,
    perSecond: n / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: n,
    failed: 0,
    requests: receiver.requests,
  };
}

/**
 * Hands out `rate` deliveries per second for `seconds` on a schedule (every 5 ms, those due by then),
 * calling `fire` with each group's ids; resolves with each id's scheduled time once all are handed out.
 */
async function paced(prefix: string, rate: number, seconds: number, fire: (ids: string[]) => void): Promise<Map<string, number>> {
  const total = Math.round(rate * seconds);
  const scheduled = new Map<string, number>();
  const started = Date.now();
  for (let sent = 0; sent < total;) {
    const due = Math.min(total, Math.floor(((Date.now() - started) * rate) / 1000) + 1);
    const ids: string[] = [];
    for (; sent < due; sent++) {
      const id = `${prefix}-${randomUUID()}`;
      ids.push(id);
      scheduled.set(id, started + (sent * 1000) / rate);
    }
    if (ids.length) fire(ids);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return scheduled;
}

/** Waits until every id in `sentAt` was answered 2xx, then the figures: latency from its send to its receipt. */
async function receipts(receiver: Receiver, sentAt: Map<string, number>, name: string): Promise<WebhookFigures> {
  const deadline = Date.now() + 600_000;
  while ([...sentAt.keys()].some((id) => !receiver.succeeded.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  const missing = [...sentAt.keys()].filter((id) => !receiver.succeeded.has(id)).length;
  if (missing) throw new Error(`${name}: ${missing} of ${sentAt.size} deliveries never arrived`);
  const latencies = [...sentAt].map(([id, at]) => receiver.succeeded.get(id)! - at);
  const first = Math.min(...sentAt.values());
  const seconds = (Math.max(...[...sentAt.keys()].map((id) => receiver.succeeded.get(id)!)) - first) / 1000;
  return {
    name,
    perSecond: sentAt.size / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: sentAt.size,
    failed: 0,
    requests: receiver.requests,
  };
}

/** Paced arrivals to the bare keep-alive POST loop (the dispatcher's connection policy): latency from the scheduled time to the receipt. */
export async function pacedPostLoop(receiver: Receiver, rate = PACED_RATE, seconds = PACED_SECONDS): Promise<WebhookFigures> {
  receiver.failRate = 0;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const pool = keepAlivePool(receiver);
  const body = JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available' });
  const posts: Promise<number>[] = [];
  const scheduled = await paced('paced-base', rate, seconds, (ids) => posts.push(...ids.map((id) => postPooled(pool, receiver, id, body))));
  await Promise.all(posts);
  const figures = await receipts(receiver, scheduled, `baseline, paced ${rate}/s, keep-alive, ${ORIGIN_CONCURRENCY} at once`);
  await pool.close();
  return figures;
}

/** Paced arrivals to the dispatcher: each group of due events is handed to Kafka at once; latency from that to the receipt. */
export async function pacedDispatcherRun(
  receiver: Receiver,
  producer: KafkaProducer,
  box: SecretBox,
  rate = PACED_RATE,
  seconds = PACED_SECONDS,
): Promise<WebhookFigures> {
  receiver.failRate = 0;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const sealed = box.seal('wlk_bench_key');
  const sentAt = new Map<string, number>();
  const sends: Promise<void>[] = [];
  let i = 0;
  await paced('paced', rate, seconds, (ids) => {
    const at = Date.now();
    const batch: OutgoingMessage[] = ids.map((id) => ({ key: id, value: deliveryEvent(receiver, sealed, i++, id) }));
    for (const id of ids) sentAt.set(id, at);
    sends.push(producer.send(Topic.DeliveryRequested, batch));
  });
  await Promise.all(sends);
  return receipts(receiver, sentAt, `dispatcher, paced ${rate}/s`);
}

export function deliveryEvent(
  receiver: Receiver,
  sealed: string,
  i: number,
  deliveryId = `bench-${randomUUID()}`,
): EventEnvelope<DeliveryRequestedEvent> {
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
export async function oneAtATime(
  receiver: Receiver,
  send: (i: number, id: string) => Promise<void>,
  name: string,
  sequential: number,
): Promise<WebhookFigures> {
  receiver.failRate = 0;
  receiver.succeeded.clear();
  receiver.requests = 0;
  const latencies: number[] = [];
  const started = Date.now();
  for (let i = 0; i < sequential; i++) {
    const id = `one-${randomUUID()}`;
    const received = new Promise<void>((resolve) => receiver.waiters.set(id, resolve));
    const at = Date.now();
    await send(i, id);
    await received;
    receiver.waiters.delete(id);
    latencies.push(Date.now() - at);
  }
  return {
    name,
    perSecond: sequential / ((Date.now() - started) / 1000),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: sequential,
    failed: 0,
    requests: receiver.requests,
  };
}

/**
 * Warms a fresh dispatcher up: a burst of `burst` deliveries (connections, the first claims), then
 * WARMUP_PACED_SECONDS of paced arrivals at PACED_RATE; returns the figures of the paced part, the cold start.
 */
export async function warmUpDispatcher(
  receiver: Receiver,
  producer: KafkaProducer,
  box: SecretBox,
  burst = 200,
): Promise<WebhookFigures | undefined> {
  await dispatcherRun(receiver, producer, box, 0, burst);
  if (WARMUP_PACED_SECONDS <= 0) return undefined;
  const cold = await pacedDispatcherRun(receiver, producer, box, PACED_RATE, WARMUP_PACED_SECONDS);
  return { ...cold, name: `dispatcher, paced ${PACED_RATE}/s, first ${WARMUP_PACED_SECONDS} s after start-up (cold)` };
}

export async function dispatcherRun(
  receiver: Receiver,
  producer: KafkaProducer,
  box: SecretBox,
  failRate: number,
  count: number,
): Promise<WebhookFigures> {
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
  return {
    name: `dispatcher, ${failRate * 100}% failing`,
    perSecond: count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count,
    failed: 0,
    requests: receiver.requests,
  };
}
