import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Shares the event loop during a long CPU-bound loop (a CSV import checks rows synchronously): `take()`
 * gives the loop a turn once `sliceMs` have passed since the last one, so RPC requests, Kafka heartbeats
 * and health probes are answered while the loop runs. Awaiting a resolved promise is not enough: it runs
 * as a microtask, before any I/O callback.
 */
export class EventLoopTurns {
  private since = Date.now();

  constructor(private readonly sliceMs: number) {}

  /** A promise to await when the slice is used up; undefined (nothing to await, no microtask) before. */
  take(): Promise<void> | undefined {
    return Date.now() - this.since < this.sliceMs ? undefined : this.turn();
  }

  private async turn(): Promise<void> {
    await nextTurn();
    this.since = Date.now();
  }
}
