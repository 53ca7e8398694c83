import { settledWithin, withTimeout } from './timeouts';

describe('withTimeout', () => {
  afterEach(() => jest.useRealTimers());

  it('settles as its promise does and leaves no timer behind', async () => {
    jest.useFakeTimers();
    await expect(withTimeout(Promise.resolve(7), 20_000, 'publishing to t')).resolves.toBe(7);
    await expect(withTimeout(Promise.reject(new Error('broker gone')), 20_000, 'publishing to t')).rejects.toThrow('broker gone');
    expect(jest.getTimerCount()).toBe(0);
  });

  it('rejects, naming what took too long, once the time has passed', async () => {
    jest.useFakeTimers();
    const outcome = expect(withTimeout(new Promise(() => undefined), 20_000, 'publishing to t')).rejects.toThrow(
      'publishing to t took over 20000 ms',
    );
    jest.advanceTimersByTime(20_000);
    await outcome;
  });
});

describe('settledWithin', () => {
  afterEach(() => jest.useRealTimers());

  it('is true for work that resolves or rejects in time, false once the time has passed, and leaves no timer behind', async () => {
    jest.useFakeTimers();
    expect(await settledWithin(undefined, 1_000)).toBe(true);
    expect(await settledWithin(Promise.resolve(), 1_000)).toBe(true);
    expect(await settledWithin(Promise.reject(new Error('gone')), 1_000)).toBe(true);
    expect(jest.getTimerCount()).toBe(0);
    const late = settledWithin(new Promise(() => undefined), 1_000);
    jest.advanceTimersByTime(1_000);
    expect(await late).toBe(false);
  });
});
