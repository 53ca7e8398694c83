/**
 * The wait between two passes of a loop that polls PostgreSQL (the outbox relay, the delivery poller, the CSV
 * import queue), cut short by `wake()`. A wake that comes while the loop is in a pass, not waiting, is kept:
 * what it announced may have committed after that pass read, so the next wait ends at once instead of a
 * poll later.
 */
export class PollWait {
  private wakeWaiter?: () => void;
  private woken = false;

  /** Ends the current wait, or the next one if the loop is in a pass. */
  wake(): void {
    if (this.wakeWaiter) this.wakeWaiter();
    else this.woken = true;
  }

  /** Forgets a kept wake: the pass about to start sees whatever it announced. */
  forget(): void {
    this.woken = false;
  }

  /** Waits `ms`, or less if woken meanwhile; not at all if a wake was kept since the last wait. */
  wait(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeWaiter = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeWaiter = done;
    });
  }
}
