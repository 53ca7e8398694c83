import { batchRowsOf } from './outbox-batch-rows';

describe('batchRowsOf: the lines of an event batch cut into rows of bounded size', () => {
  it('keeps a batch that fits in one row', () => {
    expect(batchRowsOf(['aa', 'bb', 'cc'], 8)).toEqual([['aa', 'bb', 'cc']]);
  });

  it('starts a new row where the next line (and its separator) would pass the limit, in order', () => {
    expect(batchRowsOf(['aaa', 'bbb', 'ccc', 'd'], 7)).toEqual([
      ['aaa', 'bbb'],
      ['ccc', 'd'],
    ]);
  });

  it('gives a line longer than the limit a row of its own', () => {
    expect(batchRowsOf(['a', 'x'.repeat(20), 'b'], 5)).toEqual([['a'], ['x'.repeat(20)], ['b']]);
  });

  it('makes no row of no lines', () => {
    expect(batchRowsOf([], 5)).toEqual([]);
  });
});
