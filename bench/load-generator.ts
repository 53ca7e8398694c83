/**
 * The load-generator process of the benchmarks (the load generator is never the process under test).
 * It gets one job over IPC, runs it, sends back the figures and exits:
 *  - `http`: autocannon against one URL. Each request carries its own id in place of __ID__ in the body;
 *    the ids answered 2xx are sent back, so a bench can check that every acknowledged record was stored.
 *    With `rate`, requests are paced at that many per second over all connections.
 *  - `bots`: worker bots through the work API on kept-alive connections (undici Pool, one connection per
 *    bot): lease the next unit, complete it, again, until 204 or the time is up; with `combined`, the next
 *    unit comes in the complete's answer. Latency is that of one unit (next + complete, or one complete).
 *  - `sequence`: one request after another on one kept-alive connection (the 10,000-unit run's POST and GET).
 *  - `kafka`: raw kafkajs produce of one small message per send (acks = all), `concurrency` sends at a time;
 *    `batched`: the same sends through libs/messaging's KafkaProducer, which merges concurrent sends.
 *  - `rpc`: request-reply through libs/messaging's KafkaRpcClient, `concurrency` requests at a time.
 * Started through `runLoad` (bench/lib/load.ts).
 */
import { KafkaProducer, KafkaRpcClient } from '@workline/messaging';
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { Pool } from 'undici';
import type { LoadJob, LoadResult } from './lib/load';
import { figuresOf, type JsonAnswer, percentile } from './lib/common';

interface Context {
  id?: string;
}

type Autocannon = (options: object) => Promise<{
  requests: { total: number };
  latency: { p50: number; p99: number };
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
}>;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const autocannon = require('autocannon') as Autocannon;

async function http(job: Extract<LoadJob, { kind: 'http' }>): Promise<LoadResult> {
  let next = 0;
  const acknowledged: string[] = [];
  const result = await autocannon({
    url: job.url,
    connections: job.connections,
    duration: job.seconds,
    ...(job.rate ? { overallRate: job.rate } : {}),
    requests: [
      {
        method: job.method ?? 'POST',
        headers: job.headers,
        setupRequest: (request: { body?: string }, context: Context) => {
          context.id = `${process.pid}-${next++}`;
          return { ...request, body: job.body.replace('__ID__', context.id) };
        },
        onResponse: (status: number, _body: string, context: Context) => {
          if (status >= 200 && status < 300 && context.id) acknowledged.push(context.id);
        },
      },
    ],
  });
  return {
    perSecond: result.requests.total / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    count: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
    seconds: result.duration,
    acknowledged,
  };
}

/** A keep-alive client (undici Pool) sending JSON and reading the answer whole. */
function jsonClient(base: string, connections: number) {
  const pool = new Pool(base, { connections, pipelining: 1, keepAliveTimeout: 30_000 });
  return {
    pool,
    async post(path: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; json: JsonAnswer }> {
      const response = await pool.request({
        path,
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      const text = await response.body.text();
      return { status: response.statusCode, json: text ? JSON.parse(text) : undefined };
    },
  };
}

async function bots(job: Extract<LoadJob, { kind: 'bots' }>): Promise<LoadResult> {
  const latencies: number[] = [];
  let failed = 0;
  let lastCompletion = 0;
  let combinedAnswers = 0;
  const client = jsonClient(job.base, job.workers.length);
  const started = Date.now();
  const until = started + job.seconds * 1000;
  const ask = { kind: 'unit', line_id: job.lineId };
  try {
    await Promise.all(
      job.workers.map(async (worker, w) => {
        // With `combined`, the assignment to work next came in the previous complete's answer.
        let carried: { assignment_id: string } | null | undefined;
        let combined = job.combined === true;
        while (Date.now() < until) {
          const at = performance.now();
          let assignment = carried;
          carried = undefined;
          if (assignment === undefined) {
            const next = await client.post('/workforce/v1/assignments/next', worker, ask);
            if (next.status === 204) return;
            if (next.status !== 200) {
              failed++;
              continue;
            }
            assignment = next.json as { assignment_id: string };
          }
          if (assignment === null) return;
          const output = { label: `bot-${w}`, score: 0.9 };
          const path = `/workforce/v1/assignments/${assignment.assignment_id}/complete`;
          let done = await client.post(path, worker, combined ? { output, next: ask } : { output });
          if (combined && done.status === 422) {
            // A build without `next` on complete refuses the unknown field: this bot goes on with two requests.
            combined = false;
            done = await client.post(path, worker, { output });
          }
          if (done.status !== 200) {
            failed++;
            continue;
          }
          if (combined && done.json && 'next' in done.json) {
            combinedAnswers++;
            carried = done.json.next;
          }
          latencies.push(performance.now() - at);
          lastCompletion = Date.now();
        }
      }),
    );
  } finally {
    await client.pool.close();
  }
  const seconds = ((lastCompletion || Date.now()) - started) / 1000;
  return { ...figuresOf(latencies, failed, seconds), lastCompletion, combinedAnswers };
}

async function sequence(job: Extract<LoadJob, { kind: 'sequence' }>): Promise<LoadResult> {
  const url = new URL(job.url);
  const pool = new Pool(url.origin, { connections: 1, keepAliveTimeout: 30_000 });
  const latencies: number[] = [];
  let failed = 0;
  let answerBytes = 0;
  const started = performance.now();
  try {
    for (let i = 0; i < job.count; i++) {
      const at = performance.now();
      const response = await pool.request({
        path: url.pathname + url.search,
        method: job.method,
        headers: { ...job.headers, ...(job.body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: job.body,
      });
      const text = await response.body.text();
      latencies.push(performance.now() - at);
      answerBytes = Buffer.byteLength(text);
      if (response.statusCode < 200 || response.statusCode >= 300) failed++;
    }
  } finally {
    await pool.close();
  }
  const seconds = (performance.now() - started) / 1000;
  return {
    perSecond: job.count / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    count: job.count - failed,
    failed,
    seconds,
    answerBytes,
  };
}

/** `concurrency` loops of `operation` for `seconds`: throughput, latency and this process's CPU. */
async function loops(concurrency: number, seconds: number, operation: (at: number) => Promise<unknown>): Promise<LoadResult> {
  const latencies: number[] = [];
  let failed = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const at = performance.now();
        try {
          await operation(at);
          latencies.push(performance.now() - at);
        } catch {
          failed++;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { ...figuresOf(latencies, failed, elapsed), cpuMs: (used.user + used.system) / 1000 };
}

const RAW_VALUE = JSON.stringify({ pattern: 'bench.raw', data: { n: 0, text: 'x'.repeat(200) } });

async function batchedKafka(job: Extract<LoadJob, { kind: 'kafka' }>): Promise<LoadResult> {
  const producer = new KafkaProducer({ brokers: job.brokers, app: 'bench-raw-batched', instanceId: randomUUID().slice(0, 8) });
  try {
    await producer.send(job.topic, [{ value: RAW_VALUE }]);
    return await loops(job.concurrency, job.seconds, (at) => producer.send(job.topic, [{ key: String(at), value: RAW_VALUE }]));
  } finally {
    await producer.onApplicationShutdown();
  }
}

async function rpc(job: Extract<LoadJob, { kind: 'rpc' }>): Promise<LoadResult> {
  const settings = { brokers: job.brokers, app: 'bench-rpc-client', instanceId: randomUUID().slice(0, 8) };
  const producer = new KafkaProducer(settings);
  const client = new KafkaRpcClient(settings, producer, 10_000);
  await client.onModuleInit();
  const data = { text: 'x'.repeat(200) };
  try {
    for (let i = 0; i < 20; i++) await client.requestOn(job.topic, 'echo', job.pattern, data);
    return await loops(job.concurrency, job.seconds, () => client.requestOn(job.topic, 'echo', job.pattern, data));
  } finally {
    await client.onApplicationShutdown();
    await producer.onApplicationShutdown();
  }
}

async function kafka(job: Extract<LoadJob, { kind: 'kafka' }>): Promise<LoadResult> {
  if (job.batched) return batchedKafka(job);
  const client = new Kafka({ clientId: 'bench-raw-produce', brokers: job.brokers, logLevel: logLevel.NOTHING });
  const producer = client.producer({ allowAutoTopicCreation: false });
  await producer.connect();
  const latencies: number[] = [];
  let failed = 0;
  const value = JSON.stringify({ pattern: 'bench.raw', data: { n: 0, text: 'x'.repeat(200) } });
  try {
    // Warm-up: metadata and the connection to the leader.
    await producer.send({ topic: job.topic, acks: -1, messages: [{ value }] });
    const started = performance.now();
    const until = started + job.seconds * 1000;
    await Promise.all(
      Array.from({ length: job.concurrency }, async () => {
        while (performance.now() < until) {
          const at = performance.now();
          try {
            await producer.send({ topic: job.topic, acks: -1, messages: [{ key: String(at), value }] });
            latencies.push(performance.now() - at);
          } catch {
            failed++;
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    return figuresOf(latencies, failed, seconds);
  } finally {
    await producer.disconnect();
  }
}

process.once('message', (job: LoadJob) => {
  const run =
    job.kind === 'http'
      ? http(job)
      : job.kind === 'bots'
        ? bots(job)
        : job.kind === 'sequence'
          ? sequence(job)
          : job.kind === 'rpc'
            ? rpc(job)
            : kafka(job);
  run.then(
    (result) => process.send!(result, () => process.exit(0)),
    (error: unknown) => process.send!({ error: error instanceof Error ? error.stack : String(error) }, () => process.exit(1)),
  );
});
