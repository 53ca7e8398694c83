/**
 * Benchmark of the platform API and the work API (`npm run bench:platform`; not part of `npm test`).
 *
 * Starts the bench stack (BENCH_PORT, BENCH_KAFKA_PORT, BENCH_DATABASE_URL, BENCH_REDIS_URL; its data is
 * reset), then measures:
 *   1. runs created/s: small runs created by concurrent clients (HTTP Basic, one unit each);
 *   2. one 10,000-unit run: the time to create it in one request and to read it back;
 *   3. unit completions/s: N concurrent bot workers (in the load-generator process) lease (next) and
 *      complete every unit through the work API;
 *   4. the time from the last completion to the run's DeliveryRequested event on Kafka.
 * Beside each figure, a baseline measured in the same run: a bare Fastify server answering the same
 * statuses and bodies to the same request load, and a bare Kafka produce-to-consume on a scratch topic.
 *
 * Options (env): BENCH_WORKERS (16), BENCH_UNITS (10000), BENCH_RUNS (100), BENCH_CLIENTS (8).
 */
import { Kafka, logLevel } from 'kafkajs';
import { randomUUID } from 'node:crypto';
import { startBaselineServer } from './lib/baseline';
import { call, expectStatus, fmt, startBenchStack, timed } from './lib/common';
import { runLoad } from './lib/load';
import { benchUnits, platformBaselineRoutes, platformTenant } from './lib/platform';

const WORKERS = Number(process.env.BENCH_WORKERS ?? 16);
const UNITS = Number(process.env.BENCH_UNITS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 100);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8);
const DELIVERY_TOPIC = 'workline.delivery.requested.v1';

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const kafka = new Kafka({ clientId: 'bench', brokers: stack.env.KAFKA_BROKERS.split(','), logLevel: logLevel.NOTHING });
  const consumer = kafka.consumer({ groupId: `bench-${randomUUID()}` });
  const probeTopic = `workline.bench.probe-${randomUUID().slice(0, 8)}.v1`;
  const admin = kafka.admin();
  const producer = kafka.producer();
  const baseline = await startBaselineServer(platformBaselineRoutes(UNITS));
  try {
    const base: string = stack.gatewayUrl;
    const { auth, lineId, smallLineId, workers } = await platformTenant(base, WORKERS);
    const line = { id: lineId };
    const smallLine = { id: smallLineId };

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
    const units = benchUnits(UNITS);
    let t = Date.now();
    const run = await expectStatus(
      call(base, 'POST', '/v4/runs', auth, { line_id: line.id, callback_url: 'http://bench:secret@127.0.0.1:9/callback', units }),
      201,
      'big run',
    );
    const createBigMs = Date.now() - t;
    t = Date.now();
    const read = await expectStatus(call(base, 'GET', `/v4/runs/${run.id}`, auth), 200, 'read big run');
    const readBigMs = Date.now() - t;
    if (read.units.length !== UNITS) throw new Error(`read ${read.units.length} units`);

    // 3. Unit completions/s through the work API, then the same load on the baseline server.
    const forever = 24 * 3600;
    const work = await runLoad({ kind: 'bots', base, workers, lineId: line.id, seconds: forever });
    const baselineWork = await runLoad({ kind: 'bots', base: baseline.base, workers, lineId: 'l', seconds: forever });
    const done = await expectStatus(call(base, 'GET', `/v4/runs/${run.id}?units_offset=0&units_limit=1`, auth), 200, 'read run');
    if (done.status !== 'Processed' || work.count !== UNITS) throw new Error(`run ${done.status}, ${work.count} completions`);

    // 4. Last completion → DeliveryRequested on Kafka; baseline: a bare produce → consume on a scratch topic.
    const deadline = Date.now() + 120_000;
    while (!deliveries.has(run.id) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
    const deliveryMs = (deliveries.get(run.id) ?? NaN) - work.lastCompletion!;
    const probe = randomUUID();
    const sentAt = Date.now();
    await producer.send({ topic: probeTopic, messages: [{ value: JSON.stringify({ probe }) }] });
    while (!deliveries.has(probe) && Date.now() < sentAt + 30_000) await new Promise((r) => setTimeout(r, 5));
    const probeMs = (deliveries.get(probe) ?? NaN) - sentAt;

    const rows: [string, string, string][] = [
      [`runs created/s (${RUNS} one-unit runs, ${CLIENTS} clients)`, fmt(RUNS / runSeconds), fmt(RUNS / baselineRunSeconds)],
      [`${UNITS}-unit run: POST /v4/runs (ms)`, fmt(createBigMs, 0), '-'],
      [`${UNITS}-unit run: GET /v4/runs/:id (ms)`, fmt(readBigMs, 0), '-'],
      [`unit completions/s (${WORKERS} bots, next + complete)`, fmt(work.perSecond), fmt(baselineWork.perSecond)],
      [`time to complete ${UNITS} units (s)`, fmt(work.seconds), fmt(baselineWork.seconds)],
      ['last completion → DeliveryRequested on Kafka (ms)', fmt(deliveryMs, 0), `${fmt(probeMs, 0)} (bare produce → consume)`],
    ];
    const width = Math.max(...rows.map((r) => r[0].length));
    console.log(`\n${'measure'.padEnd(width)}  ${'workline'.padStart(10)}  baseline (bare Fastify server / bare Kafka)`);
    for (const [name, value, base] of rows) console.log(`${name.padEnd(width)}  ${value.padStart(10)}  ${base}`);
  } finally {
    baseline.stop();
    await Promise.allSettled([
      consumer.disconnect(),
      producer.disconnect(),
      admin.deleteTopics({ topics: [probeTopic] }).finally(() => admin.disconnect()),
    ]);
    await stack.stop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
