import { AppMetrics } from '@workline/observability';
import { testStack, callsOnly } from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { ChainableCommander } from 'ioredis';
import { REDIS_COMMAND_TIMEOUT_MS, RedisService } from './redis.module';
import { type Pipelined, RedisScript, roundTrip, together } from './round-trip';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

const incr = (key: string): Pipelined<number> => ({ queue: (pipeline) => pipeline.incr(key), read: (reply) => Number(reply) });
const get = (key: string): Pipelined<string | null> => ({
  queue: (pipeline) => pipeline.get(key),
  read: (reply) => reply as string | null,
});
const failing = (key: string): Pipelined<unknown> => ({ queue: (pipeline) => pipeline.lpush(key, 'x'), read: (reply) => reply });

/** Round trips against the real Redis of the test stack: callers of one event-loop turn share one pipeline. */
describe('roundTrip (real Redis)', () => {
  const redis = new RedisService(testStack().redisUrl);
  const prefix = `round-trip-probe:${randomBytes(4).toString('hex')}`;
  let pipelines = 0;
  const pipeline = redis.pipeline.bind(redis);

  beforeAll(async () => {
    await redis.ping();
    redis.pipeline = ((...args: Parameters<typeof pipeline>): ChainableCommander => {
      pipelines++;
      return pipeline(...args);
    }) as typeof redis.pipeline;
  });

  afterAll(async () => {
    const keys = await redis.keys(`${prefix}:*`);
    if (keys.length) await redis.del(...keys);
    await redis.onApplicationShutdown();
  });

  it('sends the commands of concurrent callers in one pipeline, each caller getting its own replies in order', async () => {
    pipelines = 0;
    const callers = Array.from({ length: 50 }, (_, caller) =>
      roundTrip(redis, incr(`${prefix}:${caller}`), incr(`${prefix}:${caller}`), get(`${prefix}:${caller}`)),
    );
    const replies = await Promise.all(callers);
    expect(pipelines).toBe(1);
    expect(replies).toEqual(Array.from({ length: 50 }, () => [1, 2, '2']));
  });

  it('gives separate turns separate pipelines, and a caller alone its replies', async () => {
    pipelines = 0;
    expect(await roundTrip(redis, incr(`${prefix}:alone`))).toEqual([1]);
    expect(await roundTrip(redis, incr(`${prefix}:alone`), get(`${prefix}:alone`))).toEqual([2, '2']);
    expect(pipelines).toBe(2);
  });

  it('fails only the caller whose command failed; the others of the pipeline get their replies', async () => {
    await redis.set(`${prefix}:string`, 'not a list');
    const [bad, good] = await Promise.allSettled([roundTrip(redis, failing(`${prefix}:string`)), roundTrip(redis, incr(`${prefix}:good`))]);
    expect(bad.status).toBe('rejected');
    expect(String((bad as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/);
    expect(good).toEqual({ status: 'fulfilled', value: [1] });
  });

  it('runs scripts in a shared pipeline (defined on first use) with the replies of their caller', async () => {
    const script = new RedisScript('roundTripProbeAdd', "return redis.call('incrby', KEYS[1], ARGV[1])");
    const adds = await Promise.all([5, 7, 11].map((by) => script.run(redis, [`${prefix}:sum`, by], (reply) => Number(reply))));
    expect(adds).toEqual([5, 12, 23]);
  });

  it('runs a script first used after the pipeline of its turn had formed, and its batch-mates still read their own replies', async () => {
    // The gateway defines each script on its first use: a request can be the first to use one while an earlier request
    // of the same event-loop turn has already formed the pipeline (it happened after a restart, under load).
    const late = new RedisScript('roundTripProbeLate', "return {1, redis.call('incr', KEYS[1]), 'late'}");
    pipelines = 0;
    const before = roundTrip(redis, incr(`${prefix}:late-before`));
    const withScript = roundTrip(
      redis,
      get(`${prefix}:late-before`),
      late.command(redis, [`${prefix}:late`], (reply) => reply),
    );
    const after = roundTrip(redis, incr(`${prefix}:late-after`), get(`${prefix}:late-after`));
    expect(await Promise.all([before, withScript, after])).toEqual([[1], ['1', [1, 1, 'late']], [1, '1']]);
    expect(pipelines).toBe(1);
  });

  it('keeps the replies of later callers in place when a command fails to queue after its owner queued others', async () => {
    const breaksHalfway: Pipelined<unknown> = {
      replies: 2,
      queue: (pipeline) => {
        pipeline.incr(`${prefix}:halfway`);
        throw new Error('cannot queue the second command');
      },
      read: (pairs) => pairs,
    };
    const [broken, later] = await Promise.allSettled([
      roundTrip(redis, breaksHalfway),
      roundTrip(redis, incr(`${prefix}:halfway-later`), get(`${prefix}:halfway-later`)),
    ]);
    expect(broken.status).toBe('rejected');
    expect(later).toEqual({ status: 'fulfilled', value: [1, '1'] });
  });

  it("sends several owners' commands as one (together): each reads its own reply, one left out or refused reads undefined", async () => {
    await redis.set(`${prefix}:together-string`, 'not a list');
    pipelines = 0;
    const [first, [second, absent, refused, third]] = await roundTrip(
      redis,
      incr(`${prefix}:together`),
      together(incr(`${prefix}:together`), undefined, failing(`${prefix}:together-string`), get(`${prefix}:together`))!,
    );
    expect(pipelines).toBe(1);
    expect({ first, second, absent, refused, third }).toEqual({ first: 1, second: 2, absent: undefined, refused: undefined, third: '2' });
    expect(together(undefined, undefined)).toBeUndefined();
  });

  it('counts its round trips: a shared pipeline once whatever it holds, a command sent alone once, on /metrics too', async () => {
    const metrics = new AppMetrics();
    const counted = new RedisService(testStack().redisUrl, REDIS_COMMAND_TIMEOUT_MS, metrics);
    try {
      await once(counted, 'ready');
      const connected = counted.roundTrips;
      await Promise.all([
        roundTrip(counted, incr(`${prefix}:counted`), get(`${prefix}:counted`)),
        roundTrip(counted, incr(`${prefix}:counted-too`)),
      ]);
      expect(counted.roundTrips - connected).toBe(1);
      await counted.incr(`${prefix}:counted`);
      await roundTrip(counted, get(`${prefix}:counted`));
      expect(counted.roundTrips - connected).toBe(3);
      const scraped = await metrics.registry.getSingleMetricAsString('redis_round_trips_total');
      expect(scraped).toContain(`redis_round_trips_total ${counted.roundTrips}`);
    } finally {
      await counted.onApplicationShutdown();
    }
  });

  it('counts a command held while connecting once, though it passes again when the connection is ready', async () => {
    // What connecting costs: a connection that sends nothing of its own.
    const idle = new RedisService(testStack().redisUrl);
    await once(idle, 'ready');
    const early = new RedisService(testStack().redisUrl);
    try {
      // Sent before the connection is ready: held in the offline queue, then sent.
      expect(early.status).not.toBe('ready');
      expect(await early.incr(`${prefix}:early`)).toBe(1);
      expect(early.roundTrips - idle.roundTrips).toBe(1);
    } finally {
      await Promise.all([idle.onApplicationShutdown(), early.onApplicationShutdown()]);
    }
  });

  it('rejects at once when Redis is not connected, sending nothing', async () => {
    const offline = new RedisService('redis://127.0.0.1:1/0');
    try {
      await expect(roundTrip(offline, incr(`${prefix}:offline`))).rejects.toThrow(/not connected/);
    } finally {
      offline.disconnect();
    }
  });
});
