import { InMemoryRoundTrip } from '@workline/testing';
import { quotaLimitsKey } from './quota-windows';
import { type QuotaReservation, TaskQuota } from './task-quota';
import type { TaskQuotaPolicy } from './task-quota.policy';
import { InMemoryTaskQuotaCounters } from './testing/in-memory-task-quota';

// A Saturday: its day ends at midnight, its ISO week (from Monday 16th) on Monday 23rd, its month on December 1st.
const NOW = new Date('2026-11-21T12:00:00Z');
const KEYS = { day: 'quota:tasks:ws-1:d2026-11-21', week: 'quota:tasks:ws-1:w2026-11-16', month: 'quota:tasks:ws-1:m2026-11' };
const policy: TaskQuotaPolicy = { defaultLimits: { day: 2, week: 3, month: 10 }, syncSeconds: 30 };

describe('TaskQuota', () => {
  let redis: InMemoryRoundTrip;
  let counters: InMemoryTaskQuotaCounters;
  let quota: TaskQuota;

  beforeEach(() => {
    redis = new InMemoryRoundTrip();
    counters = new InMemoryTaskQuotaCounters(redis);
    quota = new TaskQuota(counters, policy);
  });

  const countsOf = (keys: Record<string, string> = KEYS) => Object.values(keys).map((key) => counters.byKey.get(key) ?? 0);
  const released = async (reservation: QuotaReservation) => {
    if (!('release' in reservation)) throw new Error(`refused: ${JSON.stringify(reservation)}`);
    await reservation.release();
  };

  it('counts a creation in the workstream’s day, week and month, each count kept an hour past its window', async () => {
    expect(await quota.reserve('ws-1', NOW)).toEqual({ release: expect.any(Function) });
    expect(countsOf()).toEqual([1, 1, 1]);
    expect([KEYS.day, KEYS.week, KEYS.month].map((key) => counters.ttls.get(key))).toEqual([
      12 * 3600 + 3600,
      (24 * 2 - 12) * 3600 + 3600,
      (24 * 10 - 12) * 3600 + 3600,
    ]);
    expect(redis.sent).toBe(1);
  });

  it('refuses once a window is full, naming it, its limit and when it resets, and counts nothing then', async () => {
    await quota.reserve('ws-1', NOW);
    await quota.reserve('ws-1', NOW);
    expect(await quota.reserve('ws-1', NOW)).toEqual({ refused: { window: 'day', limit: 2, resetsAt: new Date('2026-11-22T00:00:00Z') } });
    expect(countsOf()).toEqual([2, 2, 2]);
    // The next day has room; the week is then the one that fills.
    const sunday = new Date('2026-11-22T08:00:00Z');
    await quota.reserve('ws-1', sunday);
    expect(await quota.reserve('ws-1', sunday)).toEqual({
      refused: { window: 'week', limit: 3, resetsAt: new Date('2026-11-23T00:00:00Z') },
    });
    // Another workstream counts on its own.
    expect(await quota.reserve('ws-2', NOW)).toEqual({ release: expect.any(Function) });
  });

  it('holds a workstream to the limits support set (the copy in Redis) where set, else to the default', async () => {
    const copy = counters.writeLimits(quotaLimitsKey('ws-1'), 1, [3, null, null]);
    await redis.send(copy);
    for (let creation = 0; creation < 3; creation++) expect(await quota.reserve('ws-1', NOW)).toEqual({ release: expect.any(Function) });
    // The day allows 3 now; the week keeps its default of 3.
    expect(await quota.reserve('ws-1', NOW)).toEqual({ refused: { window: 'day', limit: 3, resetsAt: new Date('2026-11-22T00:00:00Z') } });
    expect(countsOf()).toEqual([3, 3, 3]);
  });

  it('gives a creation back in every window, so a refused request does not use up the quota', async () => {
    await released(await quota.reserve('ws-1', NOW));
    expect(countsOf()).toEqual([0, 0, 0]);
    await quota.reserve('ws-1', NOW);
    await released(await quota.reserve('ws-1', NOW));
    expect(await quota.reserve('ws-1', NOW)).toEqual({ release: expect.any(Function) });
  });

  it('sends its reservation as a command of someone else’s round trip (authentication’s)', async () => {
    const [reservation] = await redis.send(quota.reservation('ws-1', NOW));
    expect(reservation).toEqual({ release: expect.any(Function) });
    expect(countsOf()).toEqual([1, 1, 1]);
  });

  describe('without Redis', () => {
    it('allows the creation uncounted (fails open), and its release does nothing', async () => {
      redis.down = true;
      const reservation = await quota.reserve('ws-1', NOW);
      await released(reservation);
      redis.down = false;
      expect(countsOf()).toEqual([0, 0, 0]);
    });

    it('loses a refund rather than failing: the creation stays counted until its window ends', async () => {
      const reservation = await quota.reserve('ws-1', NOW);
      redis.down = true;
      await released(reservation);
      redis.down = false;
      expect(countsOf()).toEqual([1, 1, 1]);
    });
  });

  it('reads what each window counted and when it ends; `used` is null when Redis cannot answer', async () => {
    await quota.reserve('ws-1', NOW);
    const windows = [
      { window: 'day', resetsAt: new Date('2026-11-22T00:00:00Z') },
      { window: 'week', resetsAt: new Date('2026-11-23T00:00:00Z') },
      { window: 'month', resetsAt: new Date('2026-12-01T00:00:00Z') },
    ];
    expect(await quota.usage('ws-1', NOW)).toEqual(windows.map((window) => ({ ...window, used: 1 })));
    expect(await quota.usage('ws-2', NOW)).toEqual(windows.map((window) => ({ ...window, used: 0 })));
    redis.down = true;
    expect(await quota.usage('ws-1', NOW)).toEqual(windows.map((window) => ({ ...window, used: null })));
  });

  it('answers support with the limit in force per window (support’s, else the default), the default and the use', async () => {
    await quota.reserve('ws-1', NOW);
    expect(await quota.answer('ws-1', { day: 20_000, week: null, month: 0 }, NOW)).toEqual({
      workstream_id: 'ws-1',
      day: { limit: 20_000, default_limit: 2, custom: true, used: 1, resets_at: '2026-11-22T00:00:00.000Z' },
      week: { limit: 3, default_limit: 3, custom: false, used: 1, resets_at: '2026-11-23T00:00:00.000Z' },
      month: { limit: 0, default_limit: 10, custom: true, used: 1, resets_at: '2026-12-01T00:00:00.000Z' },
    });
  });
});
