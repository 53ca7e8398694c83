import { AsyncLocalStorage } from 'node:async_hooks';
import { Batcher } from './batcher';

/** A flush the test controls: records each batch and finishes it when told. */
function controlledFlush<I>() {
  const batches: I[][] = [];
  const finishers: (() => void)[] = [];
  const flush = (items: I[]) => {
    batches.push(items);
    return new Promise<string[]>((resolve) => finishers.push(() => resolve(items.map((item) => `done ${String(item)}`))));
  };
  return {
    batches,
    flush,
    finishNext: () => finishers.shift()!(),
    get pending() {
      return finishers.length;
    },
  };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('Batcher (group commit)', () => {
  it('flushes a lone item at once when idle, and resolves it with its result', async () => {
    const flush = jest.fn(async (items: number[]) => items.map((n) => n * 10));
    const batcher = new Batcher({ flush });
    await expect(batcher.submit(4)).resolves.toBe(40);
    expect(flush).toHaveBeenCalledTimes(1);
    expect(flush).toHaveBeenCalledWith([4]);
  });

  it('sends the items submitted in one turn of the event loop in one flush, each getting its own result', async () => {
    const flush = jest.fn(async (items: string[]) => items.map((s) => s.toUpperCase()));
    const batcher = new Batcher({ flush });
    await expect(Promise.all(['a', 'b', 'c'].map((s) => batcher.submit(s)))).resolves.toEqual(['A', 'B', 'C']);
    expect(flush.mock.calls).toEqual([[['a', 'b', 'c']]]);
  });

  it('queues what arrives while a flush runs, and the next flush takes all of it', async () => {
    const control = controlledFlush<string>();
    const batcher = new Batcher({ flush: control.flush });
    const first = batcher.submit('a');
    await turn();
    expect(control.batches).toEqual([['a']]);
    const later = ['b', 'c', 'd'].map((s) => batcher.submit(s));
    await turn();
    await turn();
    // Nothing starts while the first flush is under way: no second connection, no half-filled batch.
    expect(control.batches).toHaveLength(1);
    expect(batcher.waiting).toBe(3);
    control.finishNext();
    await expect(first).resolves.toBe('done a');
    await turn();
    expect(control.batches).toEqual([['a'], ['b', 'c', 'd']]);
    control.finishNext();
    await expect(Promise.all(later)).resolves.toEqual(['done b', 'done c', 'done d']);
  });

  it('takes at most maxItems per flush', async () => {
    const flush = jest.fn(async (items: number[]) => items);
    const batcher = new Batcher({ flush, maxItems: 4 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => batcher.submit(i)));
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(flush.mock.calls.map(([items]) => items)).toEqual([
      [0, 1, 2, 3],
      [4, 5, 6, 7],
      [8, 9],
    ]);
  });

  it('runs up to `concurrency` flushes at once', async () => {
    const control = controlledFlush<number>();
    const batcher = new Batcher({ flush: control.flush, maxItems: 2, concurrency: 2 });
    const all = Promise.all([1, 2, 3, 4, 5].map((n) => batcher.submit(n)));
    await turn();
    expect(control.batches).toEqual([
      [1, 2],
      [3, 4],
    ]);
    control.finishNext();
    await turn();
    expect(control.batches).toEqual([[1, 2], [3, 4], [5]]);
    control.finishNext();
    control.finishNext();
    await expect(all).resolves.toEqual(['done 1', 'done 2', 'done 3', 'done 4', 'done 5']);
  });

  it('when a batch fails, writes its items one by one in order, so only the bad one fails', async () => {
    const calls: string[][] = [];
    const flush = async (items: string[]) => {
      calls.push(items);
      if (items.includes('bad')) throw Object.assign(new Error('invalid input'), { code: '22P02' });
      return items.map((s) => `stored ${s}`);
    };
    const batcher = new Batcher({ flush });
    const outcomes = await Promise.allSettled(['a', 'bad', 'c'].map((s) => batcher.submit(s)));
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: 'stored a' },
      { status: 'rejected', reason: expect.objectContaining({ message: 'invalid input' }) },
      { status: 'fulfilled', value: 'stored c' },
    ]);
    expect(calls).toEqual([['a', 'bad', 'c'], ['a'], ['bad'], ['c']]);
  });

  it('fails every item of the batch, without trying again, when splitOn says the batch may have been written', async () => {
    const flush = jest.fn(async (_items: string[]): Promise<string[]> => {
      throw new Error('Connection terminated unexpectedly');
    });
    const batcher = new Batcher({ flush, splitOn: () => false });
    const outcomes = await Promise.allSettled(['a', 'b'].map((s) => batcher.submit(s)));
    expect(outcomes.map((o) => o.status)).toEqual(['rejected', 'rejected']);
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('keeps serving after a failure: the next items get their own flush', async () => {
    let fail = true;
    const flush = async (items: number[]) => {
      if (fail) throw new Error('down');
      return items;
    };
    const batcher = new Batcher({ flush });
    await expect(batcher.submit(1)).rejects.toThrow('down');
    fail = false;
    await expect(batcher.submit(2)).resolves.toBe(2);
  });

  it('rejects every item, without writing them again, when a flush returns the wrong number of results', async () => {
    const flush = jest.fn(async (items: number[]) => items.slice(1));
    const batcher = new Batcher({ flush });
    const outcomes = await Promise.allSettled([1, 2].map((n) => batcher.submit(n)));
    expect(outcomes).toEqual([
      { status: 'rejected', reason: expect.objectContaining({ message: 'a flush of 2 items returned 1 results' }) },
      { status: 'rejected', reason: expect.objectContaining({ message: 'a flush of 2 items returned 1 results' }) },
    ]);
    expect(flush).toHaveBeenCalledTimes(1);
  });

  it('reports the size of every flush, the one-by-one retries included', async () => {
    const sizes: number[] = [];
    const flush = async (items: number[]) => {
      if (items.length > 1) throw new Error('refused');
      return items;
    };
    const batcher = new Batcher({ flush, onFlush: (size) => sizes.push(size) });
    await Promise.all([1, 2, 3].map((n) => batcher.submit(n)));
    expect(sizes).toEqual([3, 1, 1, 1]);
  });

  it('flushes outside the context of the request that started the batch (a batch holds several requests)', async () => {
    const requests = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    const batcher = new Batcher({ flush: async (items: number[]) => (seen.push(requests.getStore()), items) });
    const answers = await Promise.all(
      [1, 2].map((n) => requests.run(`request ${n}`, async () => [await batcher.submit(n), requests.getStore()])),
    );
    expect(seen).toEqual([undefined]);
    // Each submitter goes on in its own context.
    expect(answers).toEqual([
      [1, 'request 1'],
      [2, 'request 2'],
    ]);
  });

  it('refuses settings that could never flush', () => {
    expect(() => new Batcher({ flush: async (items: number[]) => items, maxItems: 0 })).toThrow(/maxItems and concurrency/);
  });
});
