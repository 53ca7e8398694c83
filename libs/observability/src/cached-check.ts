/**
 * A check that costs something (round trips to every dependency), shared by everyone who asks: at most one
 * run at a time, and a result younger than `maxAgeMs` is answered as is. Callers that arrive while a run is
 * under way wait for that run instead of starting their own, so a flood of probes costs one check per
 * `maxAgeMs`, whatever its size.
 */
export class CachedCheck<T> {
  private last?: { value: T; at: number };
  private running?: Promise<T>;

  constructor(
    private readonly run: () => Promise<T>,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** The last result while it is fresh, else the result of a run (shared with concurrent callers). */
  get(): Promise<T> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.value);
    return this.refresh();
  }

  /** A result no older than this call: joins a run under way, else starts one. */
  refresh(): Promise<T> {
    this.running ??= this.run()
      .then((value) => {
        this.last = { value, at: this.now() };
        return value;
      })
      .finally(() => {
        this.running = undefined;
      });
    return this.running;
  }
}
