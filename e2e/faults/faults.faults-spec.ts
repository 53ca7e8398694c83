import 'reflect-metadata';
import {
  failedAttemptsBetween,
  FLEET_APPS,
  Fleet,
  faultPorts,
  flakyResponder,
  flushRedis,
  kafkaOutage,
  killKafka,
  killRedis,
  LoopbackReceiver,
  postgresOutage,
  startKafka,
  startRedis,
  stopKafka,
} from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { pause } from './client';
import { RedisLimitsProbe } from './redis-limits';
import { FaultScenario } from './scenario';

/**
 * "Nothing accepted is lost" under faults (docs/operations.md, "Fault tests"). While the scenario's streams
 * are in flight (./scenario.ts: quality submissions with records written again under both dedupe rules, a
 * bulk quality CSV import colliding with them, a 2,000-unit run worked by bot workers with a callback,
 * oversight tasks with webhooks, throughput records whose API key is rotated on the way, v3 batches and a run
 * aborted under fire on a second line, redeliveries; receivers answer 500 or too late to a share of the
 * attempts), the faults come one after the other, each alone and then two at once: every app SIGKILLed and
 * restarted in turn (performance in the middle of the CSV import), with two instances both of one app at
 * once, one killed again while it joins its consumer group, Kafka away longer than an RPC's timeout and then
 * SIGKILLed, PostgreSQL away as long (immediate stop), Redis killed (the streams must move without it, and a
 * gateway with low limits shows them fail open) and started again empty, then flushed; then two at once: the
 * broker and (both instances of) oversight, PostgreSQL and Kafka away together, a start-up crash while Kafka
 * is away, Redis and the webhook dispatcher killed together. Clients retry like real ones. Then every answer
 * the clients got as 2xx is checked, field by field, against the database, the receivers and the QC topic.
 * The same scenario runs with one and with two instances of every app (two gateways behind a
 * readiness-driven layer-4 balancer that spreads the clients' connections over both); with two, it has a
 * rolling restart of every instance that must cost no client attempt a 5xx or a connection error. Each run
 * writes its fault table to .cache/faults/report-<instances>.md.
 *
 * Reads tables on purpose: the watches that wait for the runs and tasks to end and the audit query the
 * services' tables directly (platform_run, platform_unit, oversight_task, delivery, delivery_attempt,
 * performance_*), because stored rows are the ground truth for "nothing accepted is lost" (rows no API lists
 * in full, duplicates an API would hide) and the watches must keep polling while gateways are down. The fault
 * suites are the only e2e suites meant to do so (docs/architecture.md, "Where tests live").
 */

/** Kafka and PostgreSQL outages last longer than a request waits for its RPC (RPC_TIMEOUT_MS, 10 s). */
const OUTAGE_MS = 11_000;
/** How long Redis stays down at least: five times as long as any request waits for it (REDIS_COMMAND_TIMEOUT_MS, 1 s). */
const REDIS_OUTAGE_MS = 5_000;
/** The dispatcher gives up on an attempt after 5 s (libs/webhook-dispatcher ATTEMPT_TIMEOUT_MS): late answers come after that. */
const LATE_ANSWER_MS = 6000;
/**
 * Rows of the bulk CSV import: fifteen transactions of 2,000, so that the performance instance holding it is
 * killed after its first commit and long before its last (a fast machine imports ~50,000 quality rows a
 * second, docs/benchmarks.md).
 */
const CSV_ROWS = 30_000;
const REPORT_DIR = join(__dirname, '..', '..', '.cache', 'faults');

describe.each([
  { variant: 'one instance of every app', instances: 1 },
  { variant: 'two instances of every app', instances: 2 },
])('faults with $variant', ({ instances }) => {
  const receiver = new LoopbackReceiver();
  let fleet: Fleet;
  let limits: RedisLimitsProbe;

  beforeAll(async () => {
    await receiver.start();
    fleet = await Fleet.start(instances, faultPorts().gateways);
    limits = await RedisLimitsProbe.start(`f${instances}`);
  }, 300_000);

  afterAll(async () => {
    await limits?.stop();
    await fleet?.stop();
    await receiver.stop();
  });

  it('every record answered 2xx is persisted as the rules say, the runs are Processed, every callback and webhook arrives', async () => {
    const tag = `f${instances}-${randomBytes(3).toString('hex')}`;
    const scenario = await FaultScenario.create({
      tag,
      fleet,
      receiver,
      callbackAddress: (path) => receiver.url(path),
      size: {
        run: { units: 2000, reserve: 150 },
        unitBots: 12,
        taskBots: 2,
        line2Bots: 4,
        // Far more units than the bots do before the abort, which is sent while platform-runs is killed;
        // the bots leave the last 300 until then (on a fast machine they once did all of a smaller run first).
        abortRun: { units: 3000, reserve: 300 },
        csvRows: CSV_ROWS,
        csvSeeds: 40,
      },
    });
    // Every receiver fails a share of the attempts (500) and answers others only after the dispatcher gave
    // up on them (a timeout on its side), while the apps crash: every delivery must still arrive, with
    // exactly one success recorded per delivery round.
    const flaky = flakyResponder({ failShare: 0.2, slowShare: 0.1, slowMs: LATE_ANSWER_MS, maxBadAttempts: 2 });
    for (const path of Object.values(scenario.paths)) receiver.respond(path, flaky.responder);
    const inject = (name: string, fault: () => Promise<string | void>) => scenario.inject(name, fault);
    const at = (index: number) => (instances > 1 ? ` #${index}` : '');
    const rolling = {
      on: instances > 1 && process.env.FAULTS_ROLLING_RESTART !== '0',
      restarted: 0,
      slowestStop: '',
      from: 0,
      to: 0,
      redispatched: 0,
    };
    const redisOutage = async (fault: () => Promise<void>) => {
      const down = Date.now();
      await fault();
      return async () => {
        await pause(Math.max(0, REDIS_OUTAGE_MS - (Date.now() - down)));
        await startRedis();
        await fleet.ready();
        await limits.ready();
      };
    };

    const report = await scenario.play(
      async () => {
        // Each alone.
        for (const [n, app] of FLEET_APPS.entries()) {
          const index = n % instances;
          if (app === 'performance') {
            const csv = scenario.csvImport!;
            await inject('SIGKILL performance in the middle of the bulk CSV import, restart', async () => {
              const holding = await csv.startAndAwaitFirstBatch();
              const holder = fleet.indexOfInstance('performance', String(holding.claimed_by));
              if (holder === undefined)
                throw new Error(`the CSV import is held by ${holding.claimed_by}, no performance instance of the fleet`);
              await fleet.crash('performance', holder, {
                whileDown: async () => {
                  csv.atKill = await csv.progress();
                },
              });
              return `instance${at(holder)} killed with ${csv.atKill?.rows_processed} of ${CSV_ROWS} rows committed`;
            });
          } else if (app === 'platform-runs') {
            scenario.line2.abort();
            await inject(`SIGKILL platform-runs${at(index)}, restart (a run abort in flight)`, () => fleet.crash(app, index));
          } else {
            await inject(`SIGKILL ${app}${at(index)}, restart`, () => fleet.crash(app, index));
          }
        }
        if (instances > 1) await inject('SIGKILL both instances of performance at once, restart', () => fleet.crashAll('performance'));
        await inject('SIGKILL platform-runs again during its start-up', async () => {
          const crash = await fleet.crashDuringStartup('platform-runs', 0, 'joining its consumer group');
          return `killed ${crash.reachedAfterMs} ms after its launch, ${crash.phase}: readiness ${crash.readiness}`;
        });
        // Graceful restarts are graceful (two instances): a rolling restart of every instance of every app
        // (SIGTERM, each exits 0), the streams going on through the balancer, must cost no client a 5xx or a
        // connection error (the requests in flight included). Right before the Kafka outage, which a gateway it
        // has just started must live through (docs/operations.md, "Fault tests"). FAULTS_ROLLING_RESTART=0 skips it.
        if (rolling.on) {
          await inject('rolling restart (SIGTERM) of every instance, zero 5xx and zero connection errors', async () => {
            rolling.from = Date.now();
            const redispatchedBefore = fleet.redispatched;
            const { stops } = await fleet.rollingRestart();
            rolling.redispatched = fleet.redispatched - redispatchedBefore;
            rolling.restarted = stops.length;
            const slowest = stops.reduce((a, b) => (b.ms > a.ms ? b : a));
            rolling.slowestStop = `${slowest.app} #${slowest.index} ${(slowest.ms / 1000).toFixed(1)} s`;
            rolling.to = Date.now();
          });
        }
        await inject(`Kafka away ${OUTAGE_MS / 1000} s (clean stop), restart`, async () => {
          await kafkaOutage(OUTAGE_MS);
          await fleet.ready();
        });
        await inject('SIGKILL Kafka broker, restart', async () => {
          await killKafka();
          await fleet.ready();
        });
        await inject(`PostgreSQL away ${OUTAGE_MS / 1000} s (immediate stop), restart`, async () => {
          await postgresOutage(OUTAGE_MS);
          await fleet.ready();
        });
        // The streams must move while Redis is gone, and a gateway with low limits shows the documented
        // decision (docs/decisions.md, "Redis outages"): with Redis each limit refuses past its value; without
        // it rate limits, the task quota and the failed-auth check fail open. Authentication never depends on it.
        let redisBack = async (): Promise<void> => undefined;
        await inject('SIGKILL Redis (streams move without it; limits fail open)', async () => {
          await limits.ready();
          const up = await limits.ask();
          RedisLimitsProbe.expectEnforced(up);
          redisBack = await redisOutage(killRedis);
          const down = await limits.ask();
          RedisLimitsProbe.expectFailedOpen(down);
          return `low-limits gateway, with Redis: ${RedisLimitsProbe.describe(up)}; without: ${RedisLimitsProbe.describe(down)}`;
        });
        await inject('Redis back, empty (limits enforced again)', async () => {
          await redisBack();
          const again = await limits.ask();
          RedisLimitsProbe.expectEnforced(again);
          return RedisLimitsProbe.describe(again);
        });
        await inject('flush Redis', flushRedis);

        // Two at once.
        const oversight = instances > 1 ? 'both instances of oversight' : 'oversight';
        await inject(`SIGKILL Kafka broker and ${oversight} at once, restart both`, async () => {
          await Promise.all([killKafka(), fleet.crashAll('oversight')]);
          await fleet.ready();
        });
        await inject(`PostgreSQL and Kafka away ${OUTAGE_MS / 1000} s at once, restart both`, async () => {
          await Promise.all([kafkaOutage(OUTAGE_MS), postgresOutage(OUTAGE_MS)]);
          await fleet.ready();
        });
        const lastIndex = instances - 1;
        await inject(
          `Kafka away ${OUTAGE_MS / 1000} s, webhook-dispatcher${at(lastIndex)} SIGKILLed during its start-up meanwhile`,
          async () => {
            await stopKafka();
            const away = Date.now();
            const crash = await fleet.crashDuringStartup('webhook-dispatcher', lastIndex, 'waiting for Kafka', { waitReady: false });
            await pause(Math.max(0, OUTAGE_MS - (Date.now() - away)));
            await startKafka();
            await fleet.ready();
            return `killed ${crash.reachedAfterMs} ms after its launch, ${crash.phase}`;
          },
        );
        await inject(
          `SIGKILL Redis and webhook-dispatcher${at(0)} at once, dispatcher restarted without Redis, then Redis back`,
          async () => {
            const back = await redisOutage(async () => {
              await Promise.all([killRedis(), fleet.crash('webhook-dispatcher', 0, { ready: { gateways: false } })]);
              await scenario.progressed('without Redis, the dispatcher restarted', true);
            });
            await back();
          },
        );
      },
      {
        file: join(REPORT_DIR, `report-${instances}.md`),
        title: `${instances} instance(s) of every app`,
        extra: () => {
          expect(flaky.stats.failed).toBeGreaterThan(0);
          expect(flaky.stats.late).toBeGreaterThan(0);
          const rollingFailures = rolling.on ? failedAttemptsBetween(rolling.from, rolling.to) : [];
          const restartsAndFailures = `${rolling.restarted} / ${rollingFailures.length}`;
          if (rolling.on) {
            expect(rolling.restarted).toBe(FLEET_APPS.length * instances);
            expect(rollingFailures).toEqual([]);
          }
          scenario.faultLog.push([
            `receivers: ${LATE_ANSWER_MS / 1000} s late answers and 500s throughout (20 % 500, 10 % late, of each ` +
              `delivery's first 2 attempts)`,
            `${flaky.stats.failed} answered 500, ${flaky.stats.late} late: all retried, every delivery delivered`,
          ]);
          return {
            'receiver answers 500 / late (after the 5 s timeout) / 200': `${flaky.stats.failed} / ${flaky.stats.late} / ${flaky.stats.ok}`,
            'connections the balancer sent on to another gateway after a refused connect': fleet.redispatched,
            ...(rolling.on
              ? {
                  'rolling restart: instances restarted (each exit 0) / client attempts failed (5xx, connection)': restartsAndFailures,
                  'rolling restart: slowest graceful stop': rolling.slowestStop,
                  'rolling restart: connections the balancer sent on after a refused connect': rolling.redispatched,
                }
              : {}),
          };
        },
      },
    );
    console.log(report);
  }, 1_200_000);
});
