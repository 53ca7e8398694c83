/**
 * `npm run bench:webhooks`: webhook-dispatcher throughput and latency against a loopback receiver, beside a
 * baseline measured in the same run (a bare loop of HTTP POSTs to the same receiver, as many at once as the
 * dispatcher makes). Starts the bench stack (BENCH_PORT, BENCH_KAFKA_PORT, BENCH_DATABASE_URL,
 * BENCH_REDIS_URL) with one dispatcher instance. Not part of `npm test`; `npm run bench` has its 0 % row.
 *
 * Scenarios: 0 % and 20 % of the receiver's answers are 500s (a failed attempt is retried after
 * WEBHOOK_RETRY_BASE_MS, 50 ms here, ±10 %). Latency is from the DeliveryRequested event being handed to
 * Kafka to the receiver getting the request it answers with 2xx.
 */
import 'reflect-metadata';
import { BaseEnv, loadEnv } from '@workline/config';
import { Topic } from '@workline/contracts';
import { KafkaProducer } from '@workline/kafka';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { startBenchStack } from './lib/common';
import { CONCURRENCY, DISPATCHER_ENV, RETRY_BASE_MS, deliveryEvent, dispatcherRun, oneAtATime, postLoop, postTo, startReceiver, type WebhookFigures } from './lib/webhooks';

const N = Number(process.env.BENCH_DELIVERIES ?? 2000);
const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 200);

async function main(): Promise<void> {
  const stack = await startBenchStack(DISPATCHER_ENV);
  const receiver = await startReceiver();
  const producer = new KafkaProducer({ brokers: stack.env.KAFKA_BROKERS.split(','), app: 'bench', instanceId: randomUUID().slice(0, 8) });
  const box = new SecretBox(loadEnv(BaseEnv, stack.env).secretsKey);
  try {
    // Warm-up: connections, JIT, the dispatcher's first claims.
    await dispatcherRun(receiver, producer, box, 0, 200);
    const rows: [WebhookFigures, WebhookFigures][] = [];
    for (const failRate of [0, 0.2]) rows.push([await postLoop(receiver, failRate, N), await dispatcherRun(receiver, producer, box, failRate, N)]);
    const sealed = box.seal('wlk_bench_key');
    const sequential: [WebhookFigures, WebhookFigures] = [
      await oneAtATime(receiver, (i, id) => postTo(receiver, id, JSON.stringify({ i })).then(() => undefined), 'baseline, one at a time', SEQUENTIAL),
      await oneAtATime(
        receiver,
        (i, id) => producer.send(Topic.DeliveryRequested, [{ key: id, value: deliveryEvent(receiver, sealed, i, id) }]),
        'dispatcher, one at a time',
        SEQUENTIAL,
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
