import { ConsumerStallWatch } from './consumer-stall-watch';

describe('ConsumerStallWatch', () => {
  it('reports a stall only once the consumer has been silent for the whole stall time', () => {
    const watch = new ConsumerStallWatch(60_000, 1_000);
    expect(watch.stalledFor(60_999)).toBeUndefined();
    expect(watch.stalledFor(61_000)).toBe(60_000);
    watch.alive(61_500);
    expect(watch.stalledFor(100_000)).toBeUndefined();
    expect(watch.stalledFor(121_500)).toBe(60_000);
  });

  it('never calls a consumer stalled while a batch is under way, however long it takes', () => {
    const watch = new ConsumerStallWatch(60_000, 0);
    watch.batchStarted(10_000);
    watch.batchStarted(11_000);
    watch.batchEnded(12_000);
    expect(watch.stalledFor(500_000)).toBeUndefined();
    watch.batchEnded(500_000);
    expect(watch.stalledFor(559_999)).toBeUndefined();
    expect(watch.stalledFor(560_000)).toBe(60_000);
  });

  it('does not let an unmatched end hide a later stall', () => {
    const watch = new ConsumerStallWatch(1_000, 0);
    watch.batchEnded(0);
    watch.batchStarted(0);
    watch.batchEnded(0);
    expect(watch.stalledFor(1_000)).toBe(1_000);
  });
});
