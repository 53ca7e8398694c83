import { InMemoryRoundTrip } from '@workline/testing';
import { quotaLimitsKey } from './quota-windows';
import { TaskQuotaLimits } from './task-quota-limits';
import type { TaskQuotaPolicy } from './task-quota.policy';
import { InMemoryTaskQuotaCounters, InMemoryTaskQuotaLimitRows } from './testing/in-memory-task-quota';

const policy: TaskQuotaPolicy = { defaultLimits: { day: 2, week: 3, month: 10 }, syncSeconds: 30 };

describe('TaskQuotaLimits', () => {
  let redis: InMemoryRoundTrip;
  let counters: InMemoryTaskQuotaCounters;
  let rows: InMemoryTaskQuotaLimitRows;
  let limits: TaskQuotaLimits;

  beforeEach(() => {
    redis = new InMemoryRoundTrip();
    counters = new InMemoryTaskQuotaCounters(redis);
    rows = new InMemoryTaskQuotaLimitRows();
    limits = new TaskQuotaLimits(rows, counters, policy);
  });

  afterEach(async () => {
    await limits.onModuleDestroy();
    jest.useRealTimers();
  });

  it('answers no limit of its own (the defaults) for a workstream support never set', async () => {
    expect(await limits.get('ws-1')).toEqual({ day: null, week: null, month: null });
  });

  it('stores limits, then writes their copy to Redis (null windows left to the default), each change a version up', async () => {
    expect(await limits.set('ws-1', { day: 20_000, week: null, month: null })).toEqual({ day: 20_000, week: null, month: null });
    expect(await limits.set('ws-1', { day: 30_000, week: 100_000, month: null })).toEqual({ day: 30_000, week: 100_000, month: null });
    expect(await limits.get('ws-1')).toEqual({ day: 30_000, week: 100_000, month: null });
    expect(counters.limitCopies.get(quotaLimitsKey('ws-1'))).toEqual({ version: 2, day: 30_000, week: 100_000 });
    expect(redis.sent).toBe(2);
  });

  it('stores a change while Redis is down (durable, no error); the next sync copies it', async () => {
    redis.down = true;
    expect(await limits.set('ws-1', { day: 5, week: null, month: null })).toEqual({ day: 5, week: null, month: null });
    redis.down = false;
    expect(counters.limitCopies.size).toBe(0);
    await limits.sync();
    expect(counters.limitCopies.get(quotaLimitsKey('ws-1'))).toEqual({ version: 1, day: 5 });
  });

  it('copies every workstream’s limits again, 500 per round trip, after Redis lost them', async () => {
    for (let n = 0; n < 1_200; n++) await rows.store(`ws-${n}`, { day: n, week: null, month: null });
    await limits.sync();
    expect(counters.limitCopies.size).toBe(1_200);
    expect(counters.limitCopies.get(quotaLimitsKey('ws-1199'))).toEqual({ version: 1, day: 1_199 });
    expect(redis.sent).toBe(3);
  });

  it('copies at start and every syncSeconds, a failed copy waiting for the next one, and stops when the module ends', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    await rows.store('ws-1', { day: 5, week: null, month: null });
    redis.down = true;
    limits.onApplicationBootstrap();
    await jest.advanceTimersByTimeAsync(0);
    expect(counters.limitCopies.size).toBe(0);
    redis.down = false;
    await jest.advanceTimersByTimeAsync(policy.syncSeconds * 1000);
    expect(counters.limitCopies.get(quotaLimitsKey('ws-1'))).toEqual({ version: 1, day: 5 });
    await limits.onModuleDestroy();
    const sent = redis.sent;
    await jest.advanceTimersByTimeAsync(policy.syncSeconds * 3000);
    expect(redis.sent).toBe(sent);
  });
});
