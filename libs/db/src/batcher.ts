import { AsyncResource } from 'node:async_hooks';

export interface BatcherOptions<I, R> {
  /** Writes a batch (one transaction, one commit) and resolves with one result per item, in their order. */
  flush: (items: I[]) => Promise<R[]>;
  /** Most items one flush takes. Default 256. */
  maxItems?: number;
  /** Flushes under way at once (each on a connection of its own). Default 1. */
  concurrency?: number;
  /**
   * Whether a failed batch certainly left nothing behind, so its items may be tried one by one (the bad
   * item then fails alone). Default: always.
   */
  splitOn?: (error: unknown) => boolean;
  /** Told the size of every flush (metrics). */
  onFlush?: (size: number) => void;
}

interface Waiting<I, R> {
  item: I;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

/**
 * Group commit that adapts to load (docs/decisions.md, "Group commit"). When no flush is under way, the
 * items submitted go out at once (at the end of the current turn of the event loop, so that everything
 * submitted in that turn travels together: no timer, no waiting to fill a batch); while a flush is under
 * way, new items queue and the next flush takes all of them, up to `maxItems`. An idle system pays one
 * flush per item, as without batching; a busy one pays one flush per batch.
 *
 * When a batch fails and `splitOn` allows it, its items are flushed again one at a time, in order, so a bad
 * item fails alone and its batch-mates get their own results.
 */
export class Batcher<I, R> {
  private readonly queue: Waiting<I, R>[] = [];
  private readonly maxItems: number;
  private readonly concurrency: number;
  private readonly splitOn: (error: unknown) => boolean;
  private running = 0;
  private scheduled = false;
  /**
   * Flushes run in the context the Batcher was made in (no request's): a batch holds several requests, so
   * it must not run, log or write under the request id of the one that happened to start it.
   */
  private readonly pumpOutsideRequests = AsyncResource.bind(() => {
    this.scheduled = false;
    this.pump();
  });

  constructor(private readonly options: BatcherOptions<I, R>) {
    this.maxItems = options.maxItems ?? 256;
    this.concurrency = options.concurrency ?? 1;
    this.splitOn = options.splitOn ?? (() => true);
    if (!(this.maxItems >= 1 && this.concurrency >= 1)) throw new Error('a Batcher needs maxItems and concurrency of 1 or more');
  }

  /** Resolves with the item's result once its batch is written (committed), or rejects with its error. */
  submit(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.scheduled || this.running >= this.concurrency) return;
      this.scheduled = true;
      setImmediate(this.pumpOutsideRequests);
    });
  }

  /** Items waiting for a flush (not counting those of the flushes under way). */
  get waiting(): number {
    return this.queue.length;
  }

  private pump(): void {
    while (this.running < this.concurrency && this.queue.length) {
      const batch = this.queue.splice(0, this.maxItems);
      this.running++;
      void this.write(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async write(batch: Waiting<I, R>[]): Promise<void> {
    this.options.onFlush?.(batch.length);
    let results: R[];
    try {
      results = await this.options.flush(batch.map((waiting) => waiting.item));
    } catch (error) {
      if (batch.length > 1 && this.splitOn(error)) {
        for (const waiting of batch) await this.write([waiting]);
      } else {
        for (const waiting of batch) waiting.reject(error);
      }
      return;
    }
    if (results.length !== batch.length) {
      // A bug in the flush, after its commit: trying again could write twice.
      const error = new Error(`a flush of ${batch.length} items returned ${results.length} results`);
      for (const waiting of batch) waiting.reject(error);
      return;
    }
    batch.forEach((waiting, index) => waiting.resolve(results[index]));
  }
}
