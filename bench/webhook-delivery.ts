/**
 * `npm run bench:webhooks`: webhook-dispatcher throughput and latency against a loopback receiver, beside
 * baselines measured in the same run: bare loops of HTTP POSTs to the same receiver, with a new connection
 * each (32 at once) and with the dispatcher's own connection policy (keep-alive, 8 at once: its per-origin
 * cap). Starts the bench stack (BENCH_PORT, BENCH_KAFKA_PORT, BENCH_DATABASE_URL, BENCH_REDIS_URL) with one
 * dispatcher instance. Not part of `npm test`; `npm run bench` has its 0 % burst and paced rows.
 *
 * Scenarios: a burst of BENCH_DELIVERIES events handed to Kafka at once, with 0 % and 20 % of the
 * receiver's answers 500s (a failed attempt is retried after WEBHOOK_RETRY_BASE_MS, 50 ms here, ±10 %);
 * paced arrivals (BENCH_WEBHOOK_RATE events per second for BENCH_WEBHOOK_SECONDS, default 1,000/s for
 * 10 s, after WARMUP_PACED_SECONDS of paced warm-up whose figures are printed as the cold start); one at
 * a time. Latency is from the DeliveryRequested event being handed to Kafka (a baseline POST's scheduled
 * start) to the receiver getting the request it answers with 2xx.
 */
import 'reflect-metadata';
import { BaseEnv, loadEnv } from '@workline/config';
import { Topic } from '@workline/contracts';
import { KafkaProducer } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { loadavg } from 'node:os';
import type { ChildProcess } from 'node:child_process';
import { startBenchStack, usageOf } from './lib/common';
import {
  CONCURRENCY,
  DISPATCHER_ENV,
  ORIGIN_CONCURRENCY,
  PACED_RATE,
  PACED_SECONDS,
  RETRY_BASE_MS,
  deliveryEvent,
  dispatcherRun,
  oneAtATime,
  pacedDispatcherRun,
  pacedPostLoop,
  postLoop,
  postTo,
  startReceiver,
  warmUpDispatcher,
  type WebhookFigures,
} from './lib/webhooks';

const N = Number(process.env.BENCH_DELIVERIES ?? 2000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);
/** BENCH_WEBHOOK_ONLY=paced: only the paced scenario (and its baseline), for quick before/after runs. */
const PACED_ONLY = process.env.BENCH_WEBHOOK_ONLY === 'paced';

async function main(): Promise<void> {
  const stack = await startBenchStack(DISPATCHER_ENV);
  const receiver = await startReceiver();
  const producer = new KafkaProducer({ brokers: stack.env.KAFKA_BROKERS.split(','), app: 'bench', instanceId: randomUUID().slice(0, 8) });
  const box = new SecretBox(loadEnv(BaseEnv, stack.env).secretsKey);
  // The dispatcher's CPU time (/proc) and SQL statements (its /metrics) per delivery: figures the machine's load hardly moves.
  const dispatcherPid = (stack as typeof stack & { apps: Map<string, ChildProcess> }).apps.get('webhook-dispatcher')?.pid;
  const metricsUrl = `http://127.0.0.1:${Number(stack.env.PORT) + 4}/metrics`;
  const usage = new Map<WebhookFigures, { cpuMs: number; statements: number }>();
  const measured = async (run: () => Promise<WebhookFigures>) => {
    const stop = await usageOf(dispatcherPid, metricsUrl);
    const figures = await run();
    usage.set(figures, await stop());
    return figures;
  };
  try {
    const cold = await warmUpDispatcher(receiver, producer, box);
    // Each group: its baselines, then the dispatcher (ratios are against each baseline).
    const groups: WebhookFigures[][] = [];
    if (!PACED_ONLY) {
      for (const failRate of [0, 0.2]) {
        groups.push([
          await postLoop(receiver, failRate, N),
          await postLoop(receiver, failRate, N, true),
          await measured(() => dispatcherRun(receiver, producer, box, failRate, N)),
        ]);
      }
    }
    const pacedBaseline = await pacedPostLoop(receiver);
    if (cold) groups.push([pacedBaseline, cold]);
    groups.push([pacedBaseline, await measured(() => pacedDispatcherRun(receiver, producer, box))]);
    const sealed = box.seal('wlk_bench_key');
    if (!PACED_ONLY)
      groups.push([
        await oneAtATime(
          receiver,
          (i, id) => postTo(receiver, id, JSON.stringify({ i })).then(() => undefined),
          'baseline, one at a time',
          SEQUENTIAL,
        ),
        await measured(() =>
          oneAtATime(
            receiver,
            (i, id) => producer.send(Topic.DeliveryRequested, [{ key: id, value: deliveryEvent(receiver, sealed, i, id) }]),
            'dispatcher, one at a time',
            SEQUENTIAL,
          ),
        ),
      ]);
    console.log(
      `\nwebhook delivery, bursts of ${N} deliveries, paced ${PACED_RATE}/s for ${PACED_SECONDS} s, ${SEQUENTIAL} one at a time; ` +
        `1 dispatcher instance (concurrency ${CONCURRENCY}, ${ORIGIN_CONCURRENCY} per origin), retry base ${RETRY_BASE_MS} ms\n`,
    );
    console.log(
      `load average ${loadavg()
        .map((n) => n.toFixed(1))
        .join(' ')}`,
    );
    console.log(
      'scenario                                              deliveries/s   p50 ms   p99 ms   POSTs  dispatcher CPU ' +
        'ms/delivery  SQL statements/delivery',
    );
    for (const group of groups) {
      const dispatcher = group[group.length - 1];
      for (const f of group) {
        const used = usage.get(f);
        const perDelivery = used
          ? `${(used.cpuMs / f.count).toFixed(3).padStart(28)}${(used.statements / f.count).toFixed(3).padStart(25)}`
          : '';
        console.log(
          `${f.name.padEnd(54)}${f.perSecond.toFixed(0).padStart(12)}${String(f.p50).padStart(9)}` +
            `${String(f.p99).padStart(9)}${String(f.requests).padStart(8)}${perDelivery}`,
        );
      }
      for (const base of group.slice(0, -1)) {
        console.log(
          `  dispatcher ÷ "${base.name}": throughput ${(dispatcher.perSecond / base.perSecond).toFixed(3)}, p50 ` +
            `${(dispatcher.p50 / Math.max(1, base.p50)).toFixed(1)}x, p99 ${(dispatcher.p99 / Math.max(1, base.p99)).toFixed(1)}x`,
        );
      }
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
