import { ImmutableRowCache } from './immutable-row-cache';

describe('ImmutableRowCache', () => {
  it('loads a row once, then answers from memory', async () => {
    const cache = new ImmutableRowCache<{ id: string }>();
    const load = jest.fn(async () => ({ id: 'a' }));
    await expect(cache.get('a', load)).resolves.toEqual({ id: 'a' });
    await expect(cache.get('a', load)).resolves.toEqual({ id: 'a' });
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('does not remember a missing row: it may be created later, by another instance', async () => {
    const cache = new ImmutableRowCache<string>();
    await expect(cache.get('late', async () => null)).resolves.toBeUndefined();
    await expect(cache.get('late', async () => 'created')).resolves.toBe('created');
  });

  it('keeps at most `limit` rows, dropping the oldest', async () => {
    const cache = new ImmutableRowCache<string>(2);
    const load = jest.fn(async () => 'row');
    for (const key of ['a', 'b', 'c']) await cache.get(key, load);
    await cache.get('c', load);
    await cache.get('b', load);
    expect(load).toHaveBeenCalledTimes(3);
    await cache.get('a', load);
    expect(load).toHaveBeenCalledTimes(4);
  });
});
