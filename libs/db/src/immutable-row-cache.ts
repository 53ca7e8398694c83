/**
 * An in-process cache of rows that never change once created and are never deleted (workstreams,
 * oversight configurations, production lines): a cached row can never be stale, on any instance, so it
 * needs no invalidation. Only rows found are kept (a missing one may be created a moment later, by another
 * instance). Bounded: past `limit` entries the oldest goes. A table that gains an update or a delete must
 * stop using it (docs/decisions.md, "What is cached in-process").
 */
export class ImmutableRowCache<V> {
  private readonly rows = new Map<string, V>();

  constructor(private readonly limit = 10_000) {}

  /** The cached row, else `load`'s (kept when found). */
  async get(key: string, load: () => Promise<V | null | undefined>): Promise<V | undefined> {
    const cached = this.rows.get(key);
    if (cached !== undefined) return cached;
    const loaded = await load();
    if (loaded === null || loaded === undefined) return undefined;
    if (this.rows.size >= this.limit) this.rows.delete(this.rows.keys().next().value!);
    this.rows.set(key, loaded);
    return loaded;
  }
}
