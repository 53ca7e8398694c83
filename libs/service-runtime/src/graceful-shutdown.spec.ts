import { installGracefulShutdown } from './graceful-shutdown';

describe('installGracefulShutdown', () => {
  const signals = ['SIGTERM', 'SIGINT'] as const;
  let listenersBefore: Map<string, Set<unknown>>;
  let exited: Promise<number>;

  beforeEach(() => {
    // Fake timers: the shutdown's own deadline (60 s by default) must not fire in this worker after the test.
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    listenersBefore = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]));
    exited = new Promise((resolve) => {
      jest.spyOn(process, 'exit').mockImplementation(((code: number) => resolve(code)) as never);
    });
  });

  afterEach(() => {
    // Only the handlers this test installed: the Jest worker's own stay.
    for (const signal of signals) {
      for (const listener of process.listeners(signal)) {
        if (!listenersBefore.get(signal)!.has(listener)) process.removeListener(signal, listener);
      }
    }
    jest.restoreAllMocks();
    jest.useRealTimers();
  });

  it('on SIGTERM drains at once, waits the delay, stops, and exits 0; a second signal meanwhile is ignored', async () => {
    const steps: string[] = [];
    installGracefulShutdown('probe', {
      drain: () => steps.push('drain'),
      delayMs: 20,
      stop: async () => {
        steps.push('stop');
      },
    });
    process.emit('SIGTERM', 'SIGTERM');
    expect(steps).toEqual(['drain']);
    process.emit('SIGINT', 'SIGINT');
    await jest.advanceTimersByTimeAsync(19);
    expect(steps).toEqual(['drain']);
    await jest.advanceTimersByTimeAsync(1);
    expect(await exited).toBe(0);
    expect(steps).toEqual(['drain', 'stop']);
  });

  it('exits 1 when stopping fails', async () => {
    installGracefulShutdown('probe', {
      drain: () => undefined,
      delayMs: 0,
      stop: async () => {
        throw new Error('database would not close');
      },
    });
    process.emit('SIGINT', 'SIGINT');
    expect(await exited).toBe(1);
  });

  it('exits 1 when stopping does not finish within its limit', async () => {
    installGracefulShutdown('probe', { drain: () => undefined, delayMs: 0, stop: () => new Promise<void>(() => undefined), timeoutMs: 50 });
    process.emit('SIGTERM', 'SIGTERM');
    await jest.advanceTimersByTimeAsync(50);
    expect(await exited).toBe(1);
  });
});
