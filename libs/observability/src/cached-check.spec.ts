import { CachedCheck } from './cached-check';

describe('CachedCheck', () => {
  const setup = (maxAgeMs = 2000) => {
    let clock = 1_000;
    let runs = 0;
    const pending: ((value: number) => void)[] = [];
    const check = new CachedCheck(
      () => {
        runs++;
        return new Promise<number>((resolve) => pending.push(resolve));
      },
      maxAgeMs,
      () => clock,
    );
    return {
      check,
      runs: () => runs,
      settle: (value: number) => pending.shift()!(value),
      advance: (ms: number) => (clock += ms),
    };
  };

  it('lets concurrent callers share one run', async () => {
    const { check, runs, settle } = setup();
    const answers = Promise.all(Array.from({ length: 50 }, () => check.get()));
    expect(runs()).toBe(1);
    settle(7);
    expect(await answers).toEqual(Array(50).fill(7));
  });

  it('answers a fresh result without running, and runs again once it is older than maxAgeMs', async () => {
    const { check, runs, settle, advance } = setup(2000);
    const first = check.get();
    settle(1);
    await first;
    advance(1999);
    expect(await check.get()).toBe(1);
    expect(runs()).toBe(1);
    advance(1);
    const second = check.get();
    expect(runs()).toBe(2);
    settle(2);
    expect(await second).toBe(2);
  });

  it('refresh joins a run under way and otherwise starts one, whatever the age', async () => {
    const { check, runs, settle } = setup();
    const first = check.get();
    const joined = check.refresh();
    expect(runs()).toBe(1);
    settle(3);
    expect(await Promise.all([first, joined])).toEqual([3, 3]);
    const forced = check.refresh();
    expect(runs()).toBe(2);
    settle(4);
    expect(await forced).toBe(4);
    expect(await check.get()).toBe(4);
  });

  it('does not keep a failed run: the next caller runs again', async () => {
    let runs = 0;
    const check = new CachedCheck(async () => {
      runs++;
      if (runs === 1) throw new Error('down');
      return 'ok';
    }, 2000);
    await expect(check.get()).rejects.toThrow('down');
    await expect(check.get()).resolves.toBe('ok');
    expect(runs).toBe(2);
  });
});
