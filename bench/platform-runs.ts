/**
 * Benchmark of the platform API and the work API (`npm run bench:platform`; not part of `npm test`).
 *
 * Starts the test-profile stack (TEST_PORT, TEST_KAFKA_PORT, TEST_DATABASE_URL, TEST_REDIS_URL; its data is
 * reset), then measures:
 *   1. runs created/s: small runs created by concurrent clients (HTTP Basic, one unit each);
 *   2. one 10,000-unit run: the time to create it in one request and to read it back;
 *   3. unit completions/s: N concurrent bot workers lease (next) and complete every unit through the work API;
 *   4. the time from the last completion to the run's DeliveryRequested event on Kafka.
 * Beside each figure, a baseline measured in the same run: a bare node:http server answering the same
 * statuses and bodies to the same request load, and a bare Kafka produce-to-consume on a scratch topic.
 *
 * Options (env): BENCH_WORKERS (16), BENCH_UNITS (10000), BENCH_RUNS (100), BENCH_CLIENTS (8).
 */
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const root = path.resolve(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require(path.join(root, 'tools/stack/stack.js'));
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { profiles } = require(path.join(root, 'tools/stack/profiles.js'));

const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const UNITS = Number(process.env.BENCH_UNITS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const ADMIN_TOKEN = `bench-admin-token-${randomUUID()}`;
const DELIVERY_TOPIC = 'workline.delivery.requested.v1';

type Headers = Record<string, string>;

async function call(base: string, method: string, p: string, headers: Headers, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`${base}${p}`, {
    method,
    headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

async function expectStatus(promise: Promise<{ status: number; json: any }>, status: number, what: string) {
  const result = await promise;
  if (result.status !== status) throw new Error(`${what}: expected ${status}, got ${result.status} ${JSON.stringify(result.json)}`);
  return result.json;
}

/** Runs `count` jobs with `concurrency` at a time; resolves with the elapsed seconds. */
async function timed(count: number, concurrency: number, job: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) await job(next++);
    }),
  );
  return Number(process.hrtime.bigint() - started) / 1e9;
}

/** The baseline server: answers the same routes with the same statuses and bodies, doing nothing else. */
function baselineServer(units: object[]): Promise<{ server: Server; base: string }> {
  let handed = 0;
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      if (chunks.length) JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const send = (status: number, body?: unknown) => {
        response.writeHead(status, body === undefined ? {} : { 'content-type': 'application/json' });
        response.end(body === undefined ? undefined : JSON.stringify(body));
      };
      if (request.url === '/v4/runs') return send(201, { id: randomUUID(), line_id: 'l', status: 'Processing', created_at: '2026-01-01T00:00:00Z' });
      if (request.url === '/workforce/v1/assignments/next') {
        if (handed >= units.length) return send(204);
        const input = units[handed++];
        return send(200, { assignment_id: `asgu_${randomUUID()}`, kind: 'unit', run_id: 'r', line_id: 'l', input, lease_expires_at: '2026-01-01T00:15:00Z' });
      }
      if (request.url?.endsWith('/complete')) return send(200, { assignment_id: 'a', status: 'Completed' });
      send(404, { message: 'Not found' });
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

/** N bots: next → complete until 204. Resolves with elapsed seconds, completions and the last completion time. */
async function workAll(base: string, workers: Headers[], lineId: string): Promise<{ seconds: number; completed: number; lastCompletion: number }> {
  let completed = 0;
  let lastCompletion = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    workers.map(async (worker, w) => {
      for (;;) {
        const next = await call(base, 'POST', '/workforce/v1/assignments/next', worker, { kind: 'unit', line_id: lineId });
        if (next.status === 204) return;
        if (next.status !== 200) throw new Error(`next: ${next.status} ${JSON.stringify(next.json)}`);
        await expectStatus(
          call(base, 'POST', `/workforce/v1/assignments/${next.json.assignment_id}/complete`, worker, { output: { label: `bot-${w}`, score: 0.9 } }),
          200,
          'complete',
        );
        completed++;
        lastCompletion = Date.now();
      }
    }),
  );
  return { seconds: Number(process.hrtime.bigint() - started) / 1e9, completed, lastCompletion };
}

const fmt = (n: number, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main(): Promise<void> {
  const stack = await startStack(profiles.test, {
    quietApps: true,
    extraEnv: { ADMIN_TOKEN, LOG_LEVEL: 'warn', RATE_LIMIT_V1_PER_MINUTE: '0', RATE_LIMIT_V4_PER_MINUTE: '0', RATE_LIMIT_V3_PER_MINUTE: '0', RATE_LIMIT_WORK_PER_MINUTE: '0', RATE_LIMIT_ADMIN_PER_MINUTE: '0', WEBHOOK_ALLOW_PRIVATE: '1', KAFKAJS_NO_PARTITIONER_WARNING: '1' },
  });
  const kafka = new Kafka({ clientId: 'bench', brokers: stack.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-${randomUUID()}` });
  const probeTopic = `workline.bench.probe-${randomUUID().slice(0, 8)}.v1`;
  const admin = kafka.admin();
  const producer = kafka.producer();
  const baseline = await baselineServer(Array.from({ length: UNITS }, (_, i) => ({ identifier: `unit-${i}`, text: `benchmark unit ${i}` })));
  try {
    const base: string = stack.gatewayUrl;
    const adminHeaders = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const account = await expectStatus(call(base, 'POST', '/admin/v1/accounts', adminHeaders, { name: 'Bench' }), 201, 'account');
    const line = await expectStatus(call(base, 'POST', `/admin/v1/accounts/${account.id}/lines`, adminHeaders, { name: 'Bench line' }), 201, 'line');
    const smallLine = await expectStatus(call(base, 'POST', `/admin/v1/accounts/${account.id}/lines`, adminHeaders, { name: 'Small runs' }), 201, 'line');
    const auth = { authorization: `Basic ${Buffer.from(`${account.username}:${account.password}`).toString('base64')}` };
    const workers: Headers[] = [];
    for (let i = 0; i < WORKERS; i++) {
      const worker = await expectStatus(call(base, 'POST', '/admin/v1/workers', adminHeaders, { email: `bot${i}.${randomUUID()}@example.com`, name: `bot ${i}` }), 201, 'worker');
      workers.push({ authorization: `Bearer ${worker.token}` });
    }

    const deliveries = new Map<string, number>();
    await consumer.connect();
    await consumer.subscribe({ topic: DELIVERY_TOPIC, fromBeginning: true });
    await admin.connect();
    await admin.createTopics({ waitForLeaders: true, topics: [{ topic: probeTopic, numPartitions: 1, replicationFactor: 1 }] });
    await consumer.subscribe({ topic: probeTopic, fromBeginning: true });
    await consumer.run({
      eachMessage: async ({ topic, message }) => {
        const value = JSON.parse(message.value?.toString() ?? '{}');
        const id = topic === probeTopic ? value.probe : value.data?.subject?.run_id;
        if (id) deliveries.set(id, Date.now());
      },
    });
    await producer.connect();

    // 1. Runs created/s (small runs), against the baseline server with the same requests.
    const smallRun = { line_id: smallLine.id, units: [{ identifier: 'one', text: 'small run' }] };
    const createdIds: string[] = [];
    const runSeconds = await timed(RUNS, CLIENTS, async () => {
      createdIds.push((await expectStatus(call(base, 'POST', '/v4/runs', auth, smallRun), 201, 'create run')).id);
    });
    const baselineRunSeconds = await timed(RUNS, CLIENTS, async () => {
      await expectStatus(call(baseline.base, 'POST', '/v4/runs', auth, smallRun), 201, 'baseline create');
    });
    for (const id of createdIds) await expectStatus(call(base, 'POST', `/v4/runs/${id}/abort`, auth), 202, 'abort small run');

    // 2. The big run: created in one request, read back whole.
    const units = Array.from({ length: UNITS }, (_, i) => ({ identifier: `unit-${i}`, text: `benchmark unit ${i}`, meta: { index: i } }));
    let t = Date.now();
    const run = await expectStatus(call(base, 'POST', '/v4/runs', auth, { line_id: line.id, callback_url: 'http://bench:secret@127.0.0.1:9/callback', units }), 201, 'big run');
    const createBigMs = Date.now() - t;
    t = Date.now();
    const read = await expectStatus(call(base, 'GET', `/v4/runs/${run.id}`, auth), 200, 'read big run');
    const readBigMs = Date.now() - t;
    if (read.units.length !== UNITS) throw new Error(`read ${read.units.length} units`);

    // 3. Unit completions/s through the work API, then the same load on the baseline server.
    const work = await workAll(base, workers, line.id);
    const baselineWork = await workAll(baseline.base, workers, 'l');
    const done = await expectStatus(call(base, 'GET', `/v4/runs/${run.id}?units_offset=0&units_limit=1`, auth), 200, 'read run');
    if (done.status !== 'Processed' || work.completed !== UNITS) throw new Error(`run ${done.status}, ${work.completed} completions`);

    // 4. Last completion → DeliveryRequested on Kafka; baseline: a bare produce → consume on a scratch topic.
    const deadline = Date.now() + 120_000;
    while (!deliveries.has(run.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const deliveryMs = (deliveries.get(run.id) ?? NaN) - work.lastCompletion;
    const probe = randomUUID();
    const sentAt = Date.now();
    await producer.send({ topic: probeTopic, messages: [{ value: JSON.stringify({ probe }) }] });
    while (!deliveries.has(probe) && Date.now() < sentAt + 30_000) await new Promise((r) => setTimeout(r, 5));
    const probeMs = (deliveries.get(probe) ?? NaN) - sentAt;

    const rows: [string, string, string][] = [
      [`runs created/s (${RUNS} one-unit runs, ${CLIENTS} clients)`, fmt(RUNS / runSeconds), fmt(RUNS / baselineRunSeconds)],
      [`${UNITS}-unit run: POST /v4/runs (ms)`, fmt(createBigMs, 0), '-'],
      [`${UNITS}-unit run: GET /v4/runs/:id (ms)`, fmt(readBigMs, 0), '-'],
      [`unit completions/s (${WORKERS} bots, next + complete)`, fmt(work.completed / work.seconds), fmt(baselineWork.completed / baselineWork.seconds)],
      [`time to complete ${UNITS} units (s)`, fmt(work.seconds), fmt(baselineWork.seconds)],
      ['last completion → DeliveryRequested on Kafka (ms)', fmt(deliveryMs, 0), `${fmt(probeMs, 0)} (bare produce → consume)`],
    ];
    const width = Math.max(...rows.map((r) => r[0].length));
    console.log(`\n${'measure'.padEnd(width)}  ${'workline'.padStart(10)}  baseline (bare node:http server / bare Kafka)`);
    for (const [name, value, base] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(10)}  ${base}`);
  } finally {
    baseline.server.close();
    await Promise.allSettled([consumer.disconnect(), producer.disconnect(), admin.deleteTopics({ topics: [probeTopic] }).finally(() => admin.disconnect())]);
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
