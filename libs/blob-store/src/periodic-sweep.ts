import { errorMessage } from '@workline/contracts';

/**
 * Runs a service's sweep of blobs nobody needs any more (files of finished or abandoned uploads) every
 * `intervalMs`, one sweep at a time. `sweepOnce` handles one batch and says whether there is more, in
 * which case the next batch follows at once. A failed sweep is logged and tried again at the next interval.
 */
export class PeriodicSweep {
  private timer?: NodeJS.Timeout;
  private current?: Promise<void>;
  private stopped = false;

  constructor(
    private readonly what: string,
    private readonly intervalMs: number,
    private readonly sweepOnce: () => Promise<boolean>,
    private readonly warn: (message: string) => void,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  /** Stops the schedule and waits for a sweep under way (it ends after its current batch). */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.current;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.current = this.run().finally(() => {
        this.current = undefined;
        this.schedule();
      });
    }, this.intervalMs);
  }

  private async run(): Promise<void> {
    try {
      while (!this.stopped && (await this.sweepOnce()));
    } catch (error) {
      this.warn(`${this.what} failed, next try in ${this.intervalMs / 1000} s: ${errorMessage(error)}`);
    }
  }
}
