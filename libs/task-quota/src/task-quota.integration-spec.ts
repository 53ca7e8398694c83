import { PrismaService } from '@workline/db';
import { RedisService } from '@workline/redis';
import { callsOnly, testStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { quotaCounterKey, quotaLimitsKey, windowsAt } from './quota-windows';
import { TaskQuota } from './task-quota';
import { TaskQuotaCounters } from './task-quota-counters';
import { TaskQuotaLimits } from './task-quota-limits';
import { TaskQuotaLimitsRepository } from './task-quota-limits.repository';
import type { TaskQuotaPolicy } from './task-quota.policy';

// It calls no app: PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/**
 * The quota's Redis scripts and the copies of support's limits, against the test stack's Redis and PostgreSQL:
 * what the unit specs' in-memory fakes stand for. It reads and writes only the keys and rows of its own
 * workstreams (the stack's gateways copy every row of gateway_task_quota to Redis too, which changes nothing
 * here: the same rows, the same versions).
 */
describe('task quota against real Redis and PostgreSQL', () => {
  const redis = new RedisService(testStack().redisUrl);
  const prisma = new PrismaService(testStack().databaseUrl);
  const policy: TaskQuotaPolicy = { defaultLimits: { day: 3, week: 100, month: 1000 }, syncSeconds: 3600 };
  const counters = new TaskQuotaCounters(redis);
  const quota = new TaskQuota(counters, policy);
  const limits = new TaskQuotaLimits(new TaskQuotaLimitsRepository(prisma), counters, policy);
  const workstreams: string[] = [];
  const newWorkstream = () => {
    const id = `ws_quota_${randomUUID().slice(0, 12)}`;
    workstreams.push(id);
    return id;
  };
  /** Reserves `times` creations one after another: the refusal of each (undefined where it counted). */
  const reserve = async (workstreamId: string, times = 1) => {
    const refusals = [];
    for (let i = 0; i < times; i++) {
      const reservation = await quota.reserve(workstreamId);
      refusals.push('refused' in reservation ? { window: reservation.refused.window, limit: reservation.refused.limit } : undefined);
    }
    return refusals;
  };

  // Round trips fail fast while the connection is not up yet (the quota fails open then).
  beforeAll(() => redis.ping());

  afterAll(async () => {
    const keys = workstreams.flatMap((ws) => [quotaLimitsKey(ws), ...windowsAt(new Date()).map((w) => quotaCounterKey(ws, w.id))]);
    if (keys.length) await redis.del(...keys);
    await prisma.taskQuotaLimit.deleteMany({ where: { workstreamId: { in: workstreams } } });
    await prisma.$disconnect();
    await redis.onApplicationShutdown();
  });

  it("counts in every window until one is full, holding a workstream to support's limits once set, else to the defaults", async () => {
    const ws = newWorkstream();
    expect(await reserve(ws, 4)).toEqual([undefined, undefined, undefined, { window: 'day', limit: 3 }]);
    expect((await quota.usage(ws)).map((usage) => usage.used)).toEqual([3, 3, 3]);
    await limits.set(ws, { day: 5, week: null, month: null });
    expect(await redis.hgetall(quotaLimitsKey(ws))).toEqual({ version: '1', day: '5' });
    expect(await reserve(ws, 3)).toEqual([undefined, undefined, { window: 'day', limit: 5 }]);
    await limits.set(ws, { day: 10, week: 5, month: null });
    expect(await reserve(ws)).toEqual([{ window: 'week', limit: 5 }]);
    // A refusal counted nothing.
    expect((await quota.usage(ws)).map((usage) => usage.used)).toEqual([5, 5, 5]);
  });

  it("Redis losing a workstream's copy (a restart, a flush): the sync writes it again from PostgreSQL", async () => {
    const ws = newWorkstream();
    await limits.set(ws, { day: 4, week: null, month: null });
    expect(await reserve(ws, 5)).toEqual([undefined, undefined, undefined, undefined, { window: 'day', limit: 4 }]);
    // Until then the workstream is held to the defaults (task-quota.spec.ts); not checked here, where a
    // gateway of the stack may sync at any moment.
    await redis.del(quotaLimitsKey(ws));
    await limits.sync();
    expect(await redis.hgetall(quotaLimitsKey(ws))).toEqual({ version: '1', day: '4' });
    expect(await reserve(ws)).toEqual([{ window: 'day', limit: 4 }]);
    expect(await limits.get(ws)).toEqual({ day: 4, week: null, month: null });
  });

  it('never replaces a newer copy with an older one: a gateway writing back an older reading changes nothing', async () => {
    const ws = newWorkstream();
    await limits.set(ws, { day: 4, week: null, month: null });
    await limits.set(ws, { day: 6, week: 50, month: null });
    expect(await redis.hgetall(quotaLimitsKey(ws))).toEqual({ version: '2', day: '6', week: '50' });
    await counters.send(counters.writeLimits(quotaLimitsKey(ws), 1, [4, null, null]));
    expect(await redis.hgetall(quotaLimitsKey(ws))).toEqual({ version: '2', day: '6', week: '50' });
    // A newer one replaces it whole: the week back to the default.
    await counters.send(counters.writeLimits(quotaLimitsKey(ws), 3, [7, null, null]));
    expect(await redis.hgetall(quotaLimitsKey(ws))).toEqual({ version: '3', day: '7' });
  });
});
