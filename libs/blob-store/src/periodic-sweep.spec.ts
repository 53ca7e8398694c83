import { PeriodicSweep } from './periodic-sweep';

describe('PeriodicSweep', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('sweeps once per interval, and batch after batch at once while a batch says there is more', async () => {
    const more = [true, true, false, false];
    const sweepOnce = jest.fn(async () => more.shift() ?? false);
    const sweep = new PeriodicSweep('test sweep', 1000, sweepOnce, () => undefined);
    sweep.start();
    await jest.advanceTimersByTimeAsync(999);
    expect(sweepOnce).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(sweepOnce).toHaveBeenCalledTimes(3);
    await jest.advanceTimersByTimeAsync(1000);
    expect(sweepOnce).toHaveBeenCalledTimes(4);
    await sweep.stop();
    await jest.advanceTimersByTimeAsync(5000);
    expect(sweepOnce).toHaveBeenCalledTimes(4);
  });

  it('reports a failed sweep and tries again at the next interval', async () => {
    const warnings: string[] = [];
    const sweepOnce = jest.fn().mockRejectedValueOnce(new Error('disk unavailable')).mockResolvedValue(false);
    const sweep = new PeriodicSweep('test sweep', 1000, sweepOnce, (message) => warnings.push(message));
    sweep.start();
    await jest.advanceTimersByTimeAsync(2000);
    expect(warnings).toEqual(['test sweep failed, next try in 1 s: disk unavailable']);
    expect(sweepOnce).toHaveBeenCalledTimes(2);
    await sweep.stop();
  });

  it('stop() waits for the sweep under way, which ends after its current batch', async () => {
    let finishBatch!: (more: boolean) => void;
    const sweepOnce = jest.fn(() => new Promise<boolean>((resolve) => (finishBatch = resolve)));
    const sweep = new PeriodicSweep('test sweep', 1000, sweepOnce, () => undefined);
    sweep.start();
    await jest.advanceTimersByTimeAsync(1000);
    let stopped = false;
    const stopping = sweep.stop().then(() => (stopped = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    finishBatch(true);
    await stopping;
    expect(sweepOnce).toHaveBeenCalledTimes(1);
  });
});
