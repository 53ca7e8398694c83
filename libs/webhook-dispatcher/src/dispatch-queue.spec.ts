import { DispatchQueue, type Dispatchable } from './dispatch-queue';

const OPTIONS = { concurrency: 4, originConcurrency: 2, maxHeld: 64, maxHeldBytes: 10_000, waitBudgetMs: 20_000, slowestAttemptMs: 5_000 };

let counter = 0;
const delivery = (origin: string, bytes = 10): Dispatchable => ({ id: `d${++counter}`, origin, bytes });

/** Takes every delivery the queue lets start now. */
function startAll<T extends Dispatchable>(queue: DispatchQueue<T>): T[] {
  const started: T[] = [];
  for (let next = queue.next(); next; next = queue.next()) started.push(next);
  return started;
}

describe('DispatchQueue', () => {
  it('starts at most the per-origin cap for one origin, and the rest of the slots go to others', () => {
    const queue = new DispatchQueue(OPTIONS);
    for (let i = 0; i < 6; i++) queue.push(delivery('http://slow'));
    for (let i = 0; i < 6; i++) queue.push(delivery('http://fast'));
    const started = startAll(queue);
    expect(started.map((d) => d.origin).sort()).toEqual(['http://fast', 'http://fast', 'http://slow', 'http://slow']);
    expect(queue.inFlight).toBe(4);
    expect(queue.waiting).toBe(8);
  });

  it('keeps serving another origin while one origin holds its slots for a long time', () => {
    const queue = new DispatchQueue(OPTIONS);
    for (let i = 0; i < 10; i++) queue.push(delivery('http://slow'));
    const slow = startAll(queue);
    expect(slow).toHaveLength(2);
    // The slow ones never end here; fast deliveries arriving meanwhile still start and finish.
    for (let round = 0; round < 5; round++) {
      queue.push(delivery('http://fast'));
      queue.push(delivery('http://fast'));
      const fast = startAll(queue);
      expect(fast.map((d) => d.origin)).toEqual(['http://fast', 'http://fast']);
      for (const d of fast) queue.done(d, 5);
    }
    expect(queue.inFlight).toBe(2);
  });

  it('takes turns between origins (round robin) rather than draining one first', () => {
    const queue = new DispatchQueue({ ...OPTIONS, concurrency: 1, originConcurrency: 1 });
    for (const origin of ['http://a', 'http://a', 'http://a', 'http://b', 'http://b', 'http://c']) queue.push(delivery(origin));
    const order: string[] = [];
    for (let next = queue.next(); next; next = queue.next()) {
      order.push(next.origin);
      queue.done(next, 1);
    }
    expect(order).toEqual(['http://a', 'http://b', 'http://c', 'http://a', 'http://b', 'http://a']);
  });

  it('holds one delivery id once', () => {
    const queue = new DispatchQueue(OPTIONS);
    const d = delivery('http://a');
    expect(queue.push(d)).toBe(true);
    expect(queue.push({ ...d })).toBe(false);
    expect(queue.size).toBe(1);
    expect(queue.get(d.id)).toBe(d);
  });

  it('has room by count and by bytes, and always for one delivery when empty', () => {
    const queue = new DispatchQueue({ ...OPTIONS, maxHeld: 3, maxHeldBytes: 100 });
    expect(queue.room()).toBe(3);
    expect(queue.roomBytes()).toBe(Number.MAX_SAFE_INTEGER);
    queue.push(delivery('http://a', 60));
    expect(queue.room()).toBe(2);
    expect(queue.roomBytes()).toBe(40);
    queue.push(delivery('http://a', 60));
    expect(queue.room()).toBe(0);
    expect(queue.roomBytes()).toBe(0);
  });

  it('lets an origin hold more the faster it answers, and at least twice its cap', () => {
    const queue = new DispatchQueue(OPTIONS);
    // Not seen yet: assumed as slow as an attempt can be (5 s): 20 s of waiting = 4 attempts per slot.
    expect(queue.originLimit('http://new')).toBe(8);
    queue.push(delivery('http://fast'));
    for (let i = 0; i < 40; i++) {
      const d = queue.next() ?? (queue.push(delivery('http://fast')), queue.next())!;
      queue.done(d, 10);
    }
    expect(queue.originLimit('http://fast')).toBe(64);
    for (let i = 0; i < 40; i++) {
      queue.push(delivery('http://timeouts'));
      queue.done(queue.next()!, 5_000);
    }
    expect(queue.originLimit('http://timeouts')).toBe(8);
    const { full, rooms } = queue.originRooms();
    expect(full).toEqual([]);
    expect(rooms['http://timeouts']).toBe(8);
  });

  it('reports an origin with no room as full', () => {
    const queue = new DispatchQueue({ ...OPTIONS, waitBudgetMs: 1 });
    for (let i = 0; i < 4; i++) queue.push(delivery('http://a'));
    expect(queue.originRoom('http://a')).toBe(0);
    expect(queue.originRooms().full).toEqual(['http://a']);
  });

  it('gives back waiting deliveries on request, never those under way', () => {
    const queue = new DispatchQueue(OPTIONS);
    const all = [delivery('http://a'), delivery('http://a'), delivery('http://a'), delivery('http://b')];
    for (const d of all) queue.push(d);
    const started = startAll(queue);
    const taken = queue.takeWaiting(() => true);
    expect(taken).toEqual([all[2]]);
    expect(started).toHaveLength(3);
    expect(queue.waiting).toBe(0);
    expect(queue.next()).toBeUndefined();
    for (const d of started) queue.done(d, 1);
    expect(queue.size).toBe(0);
    queue.push(delivery('http://a'));
    expect(queue.next()?.origin).toBe('http://a');
  });
});
