/**
 * `npm run bench`: the benchmarks of every API group in one run, printed as one table and written to
 * .cache/bench/results.md and .cache/bench/results.json. Not part of `npm test`. docs/benchmarks.md says
 * what each row measures and against what.
 *
 * Starts the bench stack (BENCH_PORT, BENCH_KAFKA_PORT, BENCH_DATABASE_URL, BENCH_REDIS_URL; data reset),
 * then, each Workline measure immediately followed by its baseline (the machine is shared: back-to-back
 * pairs keep the ratio meaningful):
 *   quality submissions  POST /v1/workstreams/:id/task_reviewed   vs a bare Fastify server answering 202
 *   run creation         POST /v4/runs (one unit, HTTP Basic)      vs the same server answering 201
 *   task creation        POST /v1/tasks (oversight)                vs the same server answering 201
 *   10,000-unit run      POST /v4/runs (~0.8 MB) and GET (~1.9 MB) vs a bare server: the same body, the same bytes
 *   unit completion      bots: next + complete on the work API     vs the same server answering 200, 200
 *                        bots: complete with `next` (one request)  vs the same server answering 200 with a unit
 *   webhook delivery     DeliveryRequested on Kafka → receiver 2xx vs a bare loop of POSTs to that receiver
 *   echo RPC             request-reply through libs/messaging, no SQL  vs raw Kafka produce through the merging producer
 *   raw Kafka produce    batched: libs/messaging's KafkaProducer        vs kafkajs, one message per send, acks=all
 *                        (the Kafka ceiling every row shares)
 * HTTP load comes from the load-generator process (autocannon; bots and sequences on undici keep-alive
 * pools), never from the process under test.
 *
 * The three request rows are measured twice: as fast as answered, and paced at BENCH_RATE (1000) per second.
 *
 * Settings (env): BENCH_SECONDS (10) per measure, BENCH_WARMUP_SECONDS (15) before each request row and on up to
 * BENCH_WARMUP_MAX_SECONDS (90) while the broker compiles, BENCH_CONNECTIONS (32), BENCH_RATE (1000; 0: no paced rows),
 * BENCH_WORKERS (32 bots), BENCH_UNITS (5000), BENCH_BIG_RUNS (5), BENCH_DELIVERIES (2000), BENCH_ONLY
 * (comma-separated groups to run: quality, runs, tasks, units, webhooks, transport; default all; raw Kafka
 * produce always runs).
 */
import 'reflect-metadata';
import { BaseEnv, loadEnv } from '@workline/config';
import { KafkaProducer } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { Kafka, logLevel } from 'kafkajs';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBaselineServer } from './lib/baseline';
import { ECHO_PATTERN, startEchoServer } from './lib/echo';
import {
  ADMIN_TOKEN,
  brokerCompilerCpuMs,
  call,
  cpuPerOperation,
  expectStatus,
  type Figures,
  fmt,
  newWorkstream,
  ROOT,
  stackCpuMs,
  startBenchStack,
} from './lib/common';
import { runLoad, type LoadResult } from './lib/load';
import { benchUnits, platformBaselineRoutes, platformTenant } from './lib/platform';
import { qualityBaselineRoute, qualityLoad } from './lib/quality';
import {
  CONCURRENCY,
  DISPATCHER_ENV,
  dispatcherRun,
  ORIGIN_CONCURRENCY,
  PACED_RATE,
  PACED_SECONDS,
  pacedDispatcherRun,
  pacedPostLoop,
  postLoop,
  startReceiver,
  WARMUP_PACED_SECONDS,
  warmUpDispatcher,
} from './lib/webhooks';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
/**
 * Load before each request row, not measured. A fresh broker's JVM compiles its hot code (C2) and each app's V8
 * optimises its own for 20–40 s under load: measured after 2 s, the quality row was half what the same stack
 * does warm (docs/benchmarks.md, "A warm stack"). 0 measures the stack as it starts.
 */
const WARMUP = Number(process.env.BENCH_WARMUP_SECONDS ?? 15);
/**
 * A slow machine's broker is still compiling after WARMUP (its first request row cost it 1.3–2.1 ms of CPU per
 * submission against 0.5 a minute later: docs/benchmarks.md, "The broker's compiler in the first row"). So a
 * request row's warm-up goes on in slices of WARMUP_SLICE s while the broker's JIT compiler threads use more
 * than COMPILING_SHARE of a core, up to BENCH_WARMUP_MAX_SECONDS in all.
 */
const WARMUP_MAX = Number(process.env.BENCH_WARMUP_MAX_SECONDS ?? 90);
const WARMUP_SLICE = 5;
const COMPILING_SHARE = 0.05;
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 32);
const UNITS = Number(process.env.BENCH_UNITS ?? 5000);
/** 10,000-unit runs created (and then read) one after the other for the big-run rows; their units feed the bots. */
const BIG_RUNS = Number(process.env.BENCH_BIG_RUNS ?? 5);
const BIG_RUN_UNITS = 10_000;
const DELIVERIES = Number(process.env.BENCH_DELIVERIES ?? 2000);
/** Paced rows: quality, run and task creation at this many requests per second (both sides); 0 leaves them out. */
const RATE = Number(process.env.BENCH_RATE ?? 1000);
const ONLY = new Set(
  (process.env.BENCH_ONLY ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean),
);
const runs = (group: 'quality' | 'runs' | 'tasks' | 'units' | 'webhooks' | 'transport') => !ONLY.size || ONLY.has(group);

interface Row {
  measure: string;
  unit: string;
  workline: Figures;
  baselineName: string;
  baseline: Figures;
}

const strip = ({ perSecond, p50, p99, count, failed }: Figures): Figures => ({ perSecond, p50, p99, count, failed });

function table(rows: Row[], kafka: Figures): string {
  const ratio = (a: number, b: number, digits = 3) => (b > 0 && Number.isFinite(a) ? fmt(a / b, digits) : '-');
  const lines = [
    '| measure | Workline /s | p50 ms | p99 ms | baseline | baseline /s | p50 ms | p99 ms | throughput ratio | p50 ' +
      'ratio | p99 ratio | ÷ raw Kafka produce/s |',
    '|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const { measure, unit, workline: w, baselineName, baseline: b } of rows) {
    lines.push(
      `| ${measure} (${unit}) | ${fmt(w.perSecond)} | ${fmt(w.p50, 0)} | ${fmt(w.p99, 0)} | ${baselineName} | ` +
        `${fmt(b.perSecond)} | ${fmt(b.p50, 0)} | ${fmt(b.p99, 0)} | ${ratio(w.perSecond, b.perSecond)} | ` +
        `${ratio(w.p50, Math.max(1, b.p50), 1)}x | ${ratio(w.p99, Math.max(1, b.p99), 1)}x | ` +
        `${ratio(w.perSecond, kafka.perSecond)} |`,
    );
  }
  lines.push(
    `| raw Kafka produce (kafkajs, 1 message/send, acks=all, ${CONNECTIONS} at once) | ${fmt(kafka.perSecond)} | ` +
      `${fmt(kafka.p50, 0)} | ${fmt(kafka.p99, 0)} | - | - | - | - | - | - | - | 1.000 |`,
  );
  return lines.join('\n');
}

async function main(): Promise<void> {
  const startedAt = Date.now();
  const stack = await startBenchStack(DISPATCHER_ENV);
  const base = stack.gatewayUrl;
  const brokers = stack.env.KAFKA_BROKERS.split(',');
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  const receiver = await startReceiver();
  const producer = new KafkaProducer({ brokers, app: 'bench', instanceId: randomUUID().slice(0, 8) });
  const kafkaAdmin = new Kafka({ clientId: 'bench-admin', brokers, logLevel: logLevel.NOTHING }).admin();
  const scratchTopic = `workline.bench.raw-${randomUUID().slice(0, 8)}.v1`;
  const echoTopic = `workline.bench.echo-${randomUUID().slice(0, 8)}.v1`;
  const baselineServer = await startBaselineServer([
    qualityBaselineRoute,
    ...platformBaselineRoutes(),
    { method: 'POST', url: '/v1/tasks', status: 201, body: { task_id: `tsk_${randomBytes(8).toString('hex')}` } },
  ]);
  const rows: Row[] = [];
  const checks: Record<string, number> = {};
  const notes: string[] = [];
  /** Runs a measure and notes the CPU each stack process spent per operation of it (from /proc). */
  const withCpuNote = async <R extends { count: number }>(what: string, measure: () => Promise<R>): Promise<R> => {
    const before = stackCpuMs();
    const result = await measure();
    notes.push(`CPU per ${what} (ms, from /proc): ${cpuPerOperation(before, stackCpuMs(), result.count)}.`);
    return result;
  };
  /** How long each request row warmed up, and the broker compiler's share of a core in its last slice. */
  const warmUps: string[] = [];
  /**
   * Unmeasured `load` for WARMUP s, then on in slices while the broker's JIT compilers are busy (WARMUP_MAX in
   * all); BENCH_WARMUP_SECONDS=0 measures the stack as it is.
   */
  const warmUp = async (what: string, load: (seconds: number) => Promise<unknown>): Promise<void> => {
    if (WARMUP <= 0) return;
    let seconds = Math.max(0, WARMUP - WARMUP_SLICE);
    if (seconds) await load(seconds);
    let share = NaN;
    do {
      const compiled = brokerCompilerCpuMs();
      const started = Date.now();
      await load(WARMUP_SLICE);
      seconds += WARMUP_SLICE;
      const after = brokerCompilerCpuMs();
      if (compiled === undefined || after === undefined) break; // not our broker: WARMUP alone
      share = (after - compiled) / (Date.now() - started);
    } while (share >= COMPILING_SHARE && seconds < WARMUP_MAX);
    warmUps.push(`${what} ${seconds} s${Number.isNaN(share) ? '' : ` (${fmt(100 * share, 0)} %)`}`);
  };
  const http = (url: string, headers: Record<string, string>, body: unknown, seconds = SECONDS, rate?: number) =>
    runLoad({
      kind: 'http',
      url,
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
      connections: CONNECTIONS,
      seconds,
      ...(rate ? { rate } : {}),
    });
  /** The same request paced at RATE per second, Workline then the bare server: p50/p99 at a load both can take. */
  const pacedRow = async (measure: string, path: string, headers: Record<string, string>, body: unknown, baselineName: string) => {
    if (!RATE) return;
    rows.push({
      measure: `${measure}, paced ${RATE}/s`,
      unit: 'requests',
      workline: strip(await http(`${base}${path}`, headers, body, SECONDS, RATE)),
      baselineName: `${baselineName}, paced ${RATE}/s`,
      baseline: strip(await http(`${baselineServer.base}${path}`, headers, body, SECONDS, RATE)),
    });
  };
  const step = (what: string) => console.log(`\n== ${what} (${((Date.now() - startedAt) / 1000).toFixed(0)} s)`);
  try {
    await db.connect();
    await kafkaAdmin.connect();
    await kafkaAdmin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: scratchTopic, numPartitions: 1, replicationFactor: 1 },
        { topic: echoTopic, numPartitions: 6, replicationFactor: 1 },
      ],
    });

    step('setting up tenants');
    const quality = await newWorkstream(base);
    const platform = await platformTenant(base, WORKERS);
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const configuration = await expectStatus(
      call(base, 'POST', `/admin/v1/workstreams/${quality.workstreamId}/configurations`, admin, { name: 'Bench' }),
      201,
      'configuration',
    );
    const grant = await expectStatus(
      call(base, 'POST', '/v1/signed-url', { 'x-api-key': quality.key }, { configuration_id: configuration.id }),
      200,
      'signed-url',
    );
    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(200)]);
    const put = await fetch(grant.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png });
    if (put.status !== 200) throw new Error(`media upload answered ${put.status}: ${await put.text()}`);
    await expectStatus(
      call(base, 'POST', '/v4/runs', platform.auth, { line_id: platform.lineId, units: benchUnits(UNITS) }),
      201,
      'big run',
    );

    if (runs('quality')) {
      step(`quality submissions: ${CONNECTIONS} connections, ${SECONDS} s each`);
      await warmUp('quality', (seconds) => qualityLoad(base, quality.workstreamId, quality.key, CONNECTIONS, seconds));
      const submitted = await withCpuNote('quality submission', () =>
        qualityLoad(base, quality.workstreamId, quality.key, CONNECTIONS, SECONDS, db),
      );
      checks.quality_acknowledged = submitted.count;
      checks.quality_lost = submitted.lost;
      rows.push({
        measure: 'quality submissions: POST task_reviewed',
        unit: 'requests',
        workline: strip(submitted),
        baselineName: 'bare Fastify, 202',
        baseline: strip(await qualityLoad(baselineServer.base, quality.workstreamId, quality.key, CONNECTIONS, SECONDS)),
      });
      if (RATE) {
        const paced = await qualityLoad(base, quality.workstreamId, quality.key, CONNECTIONS, SECONDS, db, RATE);
        checks.quality_acknowledged += paced.count;
        checks.quality_lost += paced.lost;
        rows.push({
          measure: `quality submissions: POST task_reviewed, paced ${RATE}/s`,
          unit: 'requests',
          workline: strip(paced),
          baselineName: `bare Fastify, 202, paced ${RATE}/s`,
          baseline: strip(await qualityLoad(baselineServer.base, quality.workstreamId, quality.key, CONNECTIONS, SECONDS, undefined, RATE)),
        });
      }
    }

    if (runs('runs')) {
      step('run creation');
      const smallRun = { line_id: platform.smallLineId, units: [{ identifier: 'one', text: 'small run' }] };
      await warmUp('run creation', (seconds) => http(`${base}/v4/runs`, platform.auth, smallRun, seconds));
      const created = await withCpuNote('run creation', () => http(`${base}/v4/runs`, platform.auth, smallRun));
      rows.push({
        measure: 'run creation: POST /v4/runs, 1 unit',
        unit: 'requests',
        workline: strip(created),
        baselineName: 'bare Fastify, 201',
        baseline: strip(await http(`${baselineServer.base}/v4/runs`, platform.auth, smallRun)),
      });
      await pacedRow('run creation: POST /v4/runs, 1 unit', '/v4/runs', platform.auth, smallRun, 'bare Fastify, 201');
    }

    if (runs('tasks')) {
      step('task creation');
      const task = { media_key: grant.media_key, configuration_id: configuration.id };
      await warmUp('task creation', (seconds) => http(`${base}/v1/tasks`, { 'x-api-key': quality.key }, task, seconds));
      const created = await withCpuNote('task creation', () => http(`${base}/v1/tasks`, { 'x-api-key': quality.key }, task));
      rows.push({
        measure: 'task creation: POST /v1/tasks',
        unit: 'requests',
        workline: strip(created),
        baselineName: 'bare Fastify, 201',
        baseline: strip(await http(`${baselineServer.base}/v1/tasks`, { 'x-api-key': quality.key }, task)),
      });
      await pacedRow('task creation: POST /v1/tasks', '/v1/tasks', { 'x-api-key': quality.key }, task, 'bare Fastify, 201');
    }

    if (runs('units')) {
      step(`${BIG_RUN_UNITS}-unit runs: ${BIG_RUNS} POSTs, then ${BIG_RUNS} GETs, one at a time`);
      const bigBody = JSON.stringify({ line_id: platform.lineId, units: benchUnits(BIG_RUN_UNITS, 'big') });
      const sequence = (url: string, method: 'GET' | 'POST', body?: string) =>
        runLoad({ kind: 'sequence', url, method, headers: platform.auth, ...(body ? { body } : {}), count: BIG_RUNS });
      const bigPosts = await sequence(`${base}/v4/runs`, 'POST', bigBody);
      const bigRun = await expectStatus(call(base, 'POST', '/v4/runs', platform.auth, JSON.parse(bigBody)), 201, 'big run to read');
      const bigRead = await fetch(`${base}/v4/runs/${bigRun.id}`, { headers: platform.auth });
      const bigText = await bigRead.text();
      if (bigRead.status !== 200 || (JSON.parse(bigText) as { units: unknown[] }).units.length !== BIG_RUN_UNITS)
        throw new Error(`GET of the big run answered ${bigRead.status}`);
      const bigServer = await startBaselineServer([
        {
          method: 'POST',
          url: '/v4/runs',
          status: 201,
          body: { id: bigRun.id, line_id: platform.lineId, status: 'Processing', created_at: bigRun.created_at },
        },
        { method: 'GET', url: '/v4/runs/:id', status: 200, body: bigText },
      ]);
      try {
        const kb = (bytes: number) => `${Math.round(bytes / 1024)} KB`;
        rows.push({
          measure: `${BIG_RUN_UNITS}-unit run: POST /v4/runs → 201 (${kb(Buffer.byteLength(bigBody))} body, ${BIG_RUNS} one at a time)`,
          unit: 'requests',
          workline: strip(bigPosts),
          baselineName: 'bare Fastify, parses the same body, 201',
          baseline: strip(
            await runLoad({
              kind: 'sequence',
              url: `${bigServer.base}/v4/runs`,
              method: 'POST',
              headers: platform.auth,
              body: bigBody,
              count: BIG_RUNS,
            }),
          ),
        });
        const bigGets = await sequence(`${base}/v4/runs/${bigRun.id}`, 'GET');
        rows.push({
          measure: `${BIG_RUN_UNITS}-unit run: GET /v4/runs/:id → 200 (${kb(bigGets.answerBytes ?? 0)} answer, ${BIG_RUNS} one at a time)`,
          unit: 'requests',
          workline: strip(bigGets),
          baselineName: 'bare Fastify answering the same bytes',
          baseline: strip(
            await runLoad({
              kind: 'sequence',
              url: `${bigServer.base}/v4/runs/${bigRun.id}`,
              method: 'GET',
              headers: platform.auth,
              count: BIG_RUNS,
            }),
          ),
        });
      } finally {
        bigServer.stop();
      }

      step(`unit completion: ${WORKERS} bots`);
      const worked: LoadResult = await withCpuNote('unit, next + complete', () =>
        runLoad({ kind: 'bots', base, workers: platform.workers, lineId: platform.lineId, seconds: SECONDS }),
      );
      rows.push({
        measure: `unit completion: ${WORKERS} bots, next + complete`,
        unit: 'units',
        workline: strip(worked),
        baselineName: 'bare Fastify, 200 + 200',
        baseline: strip(
          await runLoad({ kind: 'bots', base: baselineServer.base, workers: platform.workers, lineId: 'l', seconds: SECONDS }),
        ),
      });
      const combined: LoadResult = await withCpuNote('unit, combined route', () =>
        runLoad({ kind: 'bots', base, workers: platform.workers, lineId: platform.lineId, seconds: SECONDS, combined: true }),
      );
      checks.combined_answers = combined.combinedAnswers ?? 0;
      rows.push({
        // Without `next` on complete in this build, the bots fall back to next + complete: the check says so.
        measure:
          `unit completion: ${WORKERS} bots, combined route (complete with ` +
          `next)${combined.combinedAnswers ? '' : ' [not in this build: next + complete]'}`,
        unit: 'units',
        workline: strip(combined),
        baselineName: 'bare Fastify, 200 with the next unit',
        baseline: strip(
          await runLoad({
            kind: 'bots',
            base: baselineServer.base,
            workers: platform.workers,
            lineId: 'l',
            seconds: SECONDS,
            combined: true,
          }),
        ),
      });
    }

    if (runs('webhooks')) {
      step(`webhook delivery: ${DELIVERIES} deliveries`);
      const box = new SecretBox(loadEnv(BaseEnv, stack.env).secretsKey);
      const cold = await warmUpDispatcher(receiver, producer, box, Math.min(200, DELIVERIES));
      const paced = await withCpuNote(`delivery, paced ${PACED_RATE}/s`, () => pacedDispatcherRun(receiver, producer, box));
      const pacedBaseline = strip(await pacedPostLoop(receiver));
      const pacedBaselineName = `bare HTTP POST loop, paced, keep-alive, ${ORIGIN_CONCURRENCY} at once`;
      if (cold)
        rows.push({
          measure:
            `webhook delivery: paced ${PACED_RATE} events/s, the first ${WARMUP_PACED_SECONDS} s after start-up (cold), ` +
            'event → receiver 2xx',
          unit: 'deliveries',
          workline: strip(cold),
          baselineName: pacedBaselineName,
          baseline: pacedBaseline,
        });
      rows.push({
        measure: `webhook delivery: paced ${PACED_RATE} events/s for ${PACED_SECONDS} s, event → receiver 2xx`,
        unit: 'deliveries',
        workline: strip(paced),
        baselineName: pacedBaselineName,
        baseline: pacedBaseline,
      });
      const delivered = await withCpuNote(`delivery, ${CONCURRENCY} at once`, () => dispatcherRun(receiver, producer, box, 0, DELIVERIES));
      rows.push({
        measure: `webhook delivery: DeliveryRequested → receiver 2xx, ${CONCURRENCY} at once`,
        unit: 'deliveries',
        workline: strip(delivered),
        baselineName: `bare HTTP POST loop, ${CONCURRENCY} at once`,
        baseline: strip(await postLoop(receiver, 0, DELIVERIES)),
      });
    }

    step('raw Kafka produce');
    const kafka = strip(await runLoad({ kind: 'kafka', brokers, topic: scratchTopic, concurrency: CONNECTIONS, seconds: SECONDS }));
    const kafkaBatched = await runLoad({
      kind: 'kafka',
      batched: true,
      brokers,
      topic: scratchTopic,
      concurrency: CONNECTIONS,
      seconds: SECONDS,
    });
    if (runs('transport')) {
      step('echo RPC through the transport');
      const echo = await startEchoServer(brokers, echoTopic);
      try {
        const rpc = { kind: 'rpc', brokers, topic: echoTopic, pattern: ECHO_PATTERN, concurrency: CONNECTIONS } as const;
        await runLoad({ ...rpc, seconds: WARMUP });
        const serverCpuBefore = await echo.cpuMs();
        const echoed = await runLoad({ ...rpc, seconds: SECONDS });
        const serverCpu = (await echo.cpuMs()) - serverCpuBefore;
        rows.push({
          measure: `echo RPC: request-reply through libs/messaging, no SQL, ${CONNECTIONS} at once`,
          unit: 'requests',
          workline: strip(echoed),
          baselineName: `raw Kafka produce, batched (libs/messaging producer), ${CONNECTIONS} at once`,
          baseline: strip(kafkaBatched),
        });
        notes.push(
          `CPU per echo request: ${fmt(serverCpu / Math.max(1, echoed.count), 3)} ms in the echo service, ` +
            `${fmt((echoed.cpuMs ?? NaN) / Math.max(1, echoed.count), 3)} ms in the client (KafkaRpcClient); ` +
            `batched raw produce ${fmt((kafkaBatched.cpuMs ?? NaN) / Math.max(1, kafkaBatched.count), 3)} ms per message.`,
        );
      } finally {
        await echo.stop();
      }
    }
    rows.push({
      measure: `raw Kafka produce, batched: libs/messaging KafkaProducer, 1 message/send, acks=all, ${CONNECTIONS} at once`,
      unit: 'messages',
      workline: strip(kafkaBatched),
      baselineName: 'raw kafkajs, 1 produce per send',
      baseline: kafka,
    });

    const seconds = (Date.now() - startedAt) / 1000;
    const markdown = [
      `# npm run bench — ${new Date().toISOString()}`,
      '',
      `${SECONDS} s per measure; before each request row ${WARMUP}–${WARMUP_MAX} s of warm-up, until the broker's ` +
        `JIT compilers use under ` +
        `${fmt(100 * COMPILING_SHARE, 0)} % of a core${warmUps.length ? ` (${warmUps.join(', ')})` : ''}; ` +
        `${CONNECTIONS} connections, ${WORKERS} bots, ${DELIVERIES} deliveries; ` +
        `load average at the end ${(await import('node:os'))
          .loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')}; whole bench ${seconds.toFixed(0)} s.`,
      'Ratios are Workline ÷ baseline (throughput: higher is better, 1 = as fast as the bare baseline; latency: lower is better).',
      '',
      table(rows, kafka),
      '',
      ...notes,
      ...(runs('quality')
        ? [
            `Checks: ${checks.quality_acknowledged} quality submissions answered 202, ${checks.quality_lost} of them ` +
              `missing from PostgreSQL.`,
          ]
        : []),
      ...(runs('units') ? [`Checks: ${checks.combined_answers} completes answered with the next unit (combined route).`] : []),
    ].join('\n');
    console.log(`\n${markdown}\n`);
    const dir = join(ROOT, '.cache', 'bench');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'results.md'), `${markdown}\n`);
    const settings = { SECONDS, WARMUP, WARMUP_MAX, warmUps, CONNECTIONS, RATE, WORKERS, UNITS, BIG_RUNS, DELIVERIES };
    writeFileSync(
      join(dir, 'results.json'),
      `${JSON.stringify({ at: new Date().toISOString(), settings, rows, kafka, checks, seconds }, null, 2)}\n`,
    );
    console.log(`written to .cache/bench/results.md and .cache/bench/results.json`);
    const failed = rows.filter((r) => r.workline.failed > 0).map((r) => `${r.measure}: ${r.workline.failed} failed`);
    if (failed.length) console.warn(`operations that failed under load:\n  ${failed.join('\n  ')}`);
    if (checks.quality_lost) process.exitCode = 1;
  } finally {
    baselineServer.stop();
    await kafkaAdmin.deleteTopics({ topics: [scratchTopic, echoTopic] }).catch(() => undefined);
    await Promise.allSettled([kafkaAdmin.disconnect(), producer.onApplicationShutdown(), receiver.close(), db.end()]);
    await stack.stop();
  }
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
