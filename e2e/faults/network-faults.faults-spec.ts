import 'reflect-metadata';
import { type FleetApp, Fleet, faultPorts, LoopbackReceiver, type ProxyMode, TcpProxy } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pause } from './client';
import { AppNetwork, type Dependency } from './network';
import { FaultScenario } from './scenario';

/**
 * Network faults (docs/operations.md, "Fault tests"): every app reaches Kafka, PostgreSQL and Redis through
 * TCP proxies of its own (./network.ts), and the webhook dispatcher reaches the receivers through one more.
 * While the scenario's streams are in flight (./scenario.ts, the main fault suite's: quality submissions with
 * records written again, a run worked by bot workers, oversight tasks with webhooks, throughput records with
 * API key rotation, v3 batches, redeliveries), the suite adds latency to, resets and black-holes each kind of
 * link, every app's link to a dependency at once or one app's alone, each fault alone and then two at once.
 * Then every 2xx is checked field by field against the database, and every callback and webhook against its
 * delivery row and its signature. One instance of every app: the links, not the scale-out, are under test
 * (the main fault suite runs both fleets), and one fleet keeps the added time small. Writes
 * .cache/faults/report-network.md.
 *
 * Its watches and its audit read the services' tables on purpose, for the reasons faults.faults-spec.ts gives.
 */

/** Kafka and PostgreSQL black holes last longer than a request waits for its RPC (RPC_TIMEOUT_MS, 10 s). */
const LONG_HOLE_MS = 11_000;
/** A receiver black hole lasts longer than the dispatcher waits for one attempt (ATTEMPT_TIMEOUT_MS, 5 s). */
const RECEIVER_HOLE_MS = 6_000;
/** Resets: every open connection is cut, and new ones are reset for this long. */
const RESET_MS = 2_000;
/**
 * The dispatcher's retry base here. The receiver faults come back to back (resets 2 s, a black hole 6 s,
 * then resets 11 s beside Kafka's black hole: ~23 s with the faults between them), and a delivery that
 * fails throughout goes dead after its 5th attempt, by design. With the fault stage's 1 s base the five
 * attempts span 13.5–16.5 s, so a delivery caught by the first fault could die before the last one ended
 * (seen in a fresh-clone run); at 2.5 s they span 34–41 s.
 */
const RETRY_BASE_MS = 2_500;
const REPORT_DIR = join(__dirname, '..', '..', '.cache', 'faults');

/** A link the suite can break: the links of `apps` (every app when absent) to one dependency, or the dispatcher's to the receivers. */
type Link = { to: Dependency; apps?: readonly FleetApp[] } | { to: 'receiver' };

interface Fault {
  link: Link;
  mode: ProxyMode;
  /** How long it lasts; without it, it lasts until every stream has moved under it (the streams must not need the link whole). */
  holdMs?: number;
}

const DEPENDENCY_NAMES: Record<Dependency, string> = { kafka: 'Kafka', postgres: 'PostgreSQL', redis: 'Redis' };
const linkName = (link: Link) =>
  link.to === 'receiver' ? 'dispatcher ↔ receivers' : `${link.apps ? link.apps.join(', ') : 'apps'} ↔ ${DEPENDENCY_NAMES[link.to]}`;
const describeMode = (mode: ProxyMode) =>
  mode.kind === 'latency' ? `+${mode.ms} ms latency each way` : mode.kind === 'reset' ? 'connections reset' : mode.kind;

const every = (to: Dependency): Link => ({ to });
const only = (app: FleetApp, to: Dependency): Link => ({ to, apps: [app] });
const receivers: Link = { to: 'receiver' };
/** Only the gateway talks to Redis (rate limits, quotas, failed-auth counters, the identity epoch). */
const redis = only('gateway', 'redis');

// Each alone, then two at once. Redis faults, latency and a receiver's resets never stop the streams: they
// must move while the fault lasts (Redis-backed limits fail open; a slower link is still a link). Then one
// app's link alone (a partition the other apps do not see).
const FAULTS: Fault[][] = [
  [{ link: every('kafka'), mode: { kind: 'latency', ms: 100 } }],
  [{ link: every('kafka'), mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: every('kafka'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: every('postgres'), mode: { kind: 'latency', ms: 20 } }],
  [{ link: every('postgres'), mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: every('postgres'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: redis, mode: { kind: 'latency', ms: 100 } }],
  [{ link: redis, mode: { kind: 'reset' } }],
  [{ link: redis, mode: { kind: 'blackhole' } }],
  [{ link: receivers, mode: { kind: 'latency', ms: 500 } }],
  [{ link: receivers, mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: receivers, mode: { kind: 'blackhole' }, holdMs: RECEIVER_HOLE_MS }],
  [{ link: only('gateway', 'kafka'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: only('webhook-dispatcher', 'postgres'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: only('performance', 'kafka'), mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: only('platform-runs', 'postgres'), mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [
    { link: every('postgres'), mode: { kind: 'reset' }, holdMs: RESET_MS },
    { link: every('kafka'), mode: { kind: 'latency', ms: 100 } },
  ],
  [
    { link: every('kafka'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS },
    { link: receivers, mode: { kind: 'reset' }, holdMs: LONG_HOLE_MS },
  ],
  [
    { link: redis, mode: { kind: 'blackhole' } },
    { link: every('postgres'), mode: { kind: 'latency', ms: 20 } },
  ],
  [
    { link: only('oversight', 'kafka'), mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS },
    { link: only('gateway', 'postgres'), mode: { kind: 'reset' }, holdMs: RESET_MS },
  ],
];

describe('network faults between the apps and Kafka, PostgreSQL, Redis and the receivers', () => {
  const receiver = new LoopbackReceiver();
  let receiverProxy: TcpProxy;
  let network: AppNetwork;
  let fleet: Fleet;

  beforeAll(async () => {
    await receiver.start();
    receiverProxy = await new TcpProxy('dispatcher → receiver', {
      host: '127.0.0.1',
      port: Number(new URL(receiver.url('/')).port),
    }).start();
    network = await AppNetwork.start();
    fleet = await Fleet.start(1, faultPorts().gateways, { WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) }, network.env());
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
    await network?.stop();
    await receiverProxy?.stop();
    await receiver.stop();
  });

  it('every 2xx is durable and as the rules say, every callback and webhook arrives as its delivery row says, signed', async () => {
    const tag = `n-${randomBytes(3).toString('hex')}`;
    const scenario = await FaultScenario.create({
      tag,
      fleet,
      receiver,
      // Callback URLs lead through the receiver's proxy.
      callbackAddress: (path) => `http://${receiverProxy.address}${path}`,
      size: { run: { units: 600, reserve: 60 }, unitBots: 6, taskBots: 2, line2Bots: 2 },
    });
    const setLink = (link: Link, mode: ProxyMode) =>
      link.to === 'receiver' ? receiverProxy.set(mode) : network.set(link.to, mode, link.apps);
    const countsOf = (link: Link) => (link.to === 'receiver' ? receiverProxy.counts : network.counts(link.to, link.apps));
    const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
    const inject = async (faults: Fault[]) => {
      const name = faults
        .map((f) => `${linkName(f.link)}: ${describeMode(f.mode)}${f.holdMs ? ` ${f.holdMs / 1000} s` : ' (streams must move under it)'}`)
        .join(' + ');
      const before = faults.map((f) => countsOf(f.link));
      const started = Date.now();
      for (const fault of faults) setLink(fault.link, fault.mode);
      const lift = (fault: Fault) => setLink(fault.link, { kind: 'pass' });
      // A timed fault is lifted when its time is up; one without a duration once every stream (and, for the
      // receiver link, the webhooks) moved under it and under the faults of its pair that are still on.
      const held = faults.filter((f) => f.holdMs === undefined);
      await Promise.all([
        held.length
          ? scenario
              .progressed(
                `under ${name}`,
                held.some((f) => f.link.to === 'receiver'),
              )
              .then(() => held.forEach(lift))
          : undefined,
        ...faults.filter((f) => f.holdMs !== undefined).map((f) => pause(f.holdMs!).then(() => lift(f))),
      ]);
      const healed = Date.now();
      await scenario.progressed(
        `after ${name}`,
        faults.some((f) => f.link.to === 'receiver'),
      );
      const hit = faults.map((f, i) => {
        const now = countsOf(f.link);
        return `${now.reset - before[i].reset} reset, ${now.stalled - before[i].stalled} stalled`;
      });
      scenario.logFault(
        name,
        `${seconds(started)} faulted (${hit.join('; ')}), ${seconds(healed)} until every stream moved again`,
        started,
      );
      console.log(scenario.faultLog.at(-1)!.join(': '));
    };

    const report = await scenario.play(
      async () => {
        for (const faults of FAULTS) await inject(faults);
      },
      {
        file: join(REPORT_DIR, 'report-network.md'),
        title: 'Network faults, one instance of every app',
        extra: () => ({
          'connections through the proxies (Kafka / PostgreSQL / Redis / receiver)':
            `${network.counts('kafka').accepted} / ${network.counts('postgres').accepted} / ` +
            `${network.counts('redis').accepted} / ${receiverProxy.counts.accepted}`,
        }),
      },
    );
    console.log(report);
  }, 1_200_000);
});
