import { Logger } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import { runWithRequestId } from '@workline/observability';
import type { DeliveryStore, OutcomeRow } from './delivery-store';

interface PendingOutcome {
  outcome: OutcomeRow;
  /** When the lease that made the attempt ends (local clock); past it the outcome may belong to another instance's attempt. */
  leaseDeadline: number;
}

/** Most outcomes written in one statement. */
const MAX_BATCH = 500;
const RETRY_FIRST_MS = 200;
const RETRY_MAX_MS = 5_000;

/**
 * Writes attempt outcomes in batches (group commit): an outcome that ends while no write is under way is
 * written at once (with those of the same turn of the event loop); those that end meanwhile wait and go
 * together in the next write, so the statements per second stay few whatever the attempt rate. A write
 * that fails is tried again (with growing waits) as long as the outcomes' leases last; after that their
 * deliveries are attempted again by whoever claims them (at-least-once, never lost).
 */
export class OutcomeRecorder {
  private readonly logger = new Logger('DeliveryScheduler');
  private buffer: PendingOutcome[] = [];
  private writing?: Promise<void>;

  constructor(
    private readonly store: DeliveryStore,
    /** Called when a write made deliveries dead (their events wait in the outbox). */
    private readonly onDead: () => void,
  ) {}

  /** Outcomes waiting for their write. */
  get waiting(): number {
    return this.buffer.length;
  }

  add(outcome: OutcomeRow, leaseDeadline: number): void {
    this.buffer.push({ outcome, leaseDeadline });
    this.startWriting();
  }

  /** One writer at a time, outside any request's context (a batch holds the outcomes of many). */
  private startWriting(): void {
    if (this.writing) return;
    this.writing = runWithRequestId(undefined, () => this.writeAll())
      .catch((error: unknown) => this.logger.error(`recording attempt outcomes failed: ${errorMessage(error)}`))
      .finally(() => {
        this.writing = undefined;
        // Outcomes added after the last write began and before this one ended.
        if (this.buffer.length) this.startWriting();
      });
  }

  /** Resolves once every outcome added so far is written (or given up). */
  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  private async writeAll(): Promise<void> {
    // The outcomes of this turn of the event loop go in the first write.
    await new Promise((resolve) => setImmediate(resolve));
    let failures = 0;
    while (this.buffer.length) {
      const batch = this.buffer.splice(0, MAX_BATCH);
      try {
        await this.write(batch.map((pending) => pending.outcome));
        failures = 0;
      } catch (error) {
        failures++;
        const now = Date.now();
        const kept = batch.filter((pending) => pending.leaseDeadline > now);
        for (const { outcome } of batch.filter((pending) => pending.leaseDeadline <= now)) {
          this.logger.error(
            `could not record the attempt of delivery ${outcome.id} before its lease ended (${errorMessage(error)}); it ` +
              `will be attempted again`,
          );
        }
        this.buffer.unshift(...kept);
        if (kept.length) this.logger.warn(`recording ${kept.length} attempt outcomes failed, will retry: ${errorMessage(error)}`);
        await new Promise((resolve) => setTimeout(resolve, Math.min(RETRY_MAX_MS, RETRY_FIRST_MS * 2 ** (failures - 1))));
      }
    }
  }

  private async write(outcomes: OutcomeRow[]): Promise<void> {
    // One outcome per delivery and write: a delivery is attempted once at a time by an instance.
    const latest = [...new Map(outcomes.map((outcome) => [outcome.id, outcome])).values()];
    const recorded = new Map((await this.store.record(latest)).map((row) => [row.id, row]));
    let dead = false;
    for (const outcome of latest) {
      const row = recorded.get(outcome.id);
      runWithRequestId(outcome.request_id ?? undefined, () => {
        if (!row) this.logger.warn(`delivery ${outcome.id}: the lease expired during the attempt; another instance owns it now`);
        else if (row.status === 'dead')
          this.logger.warn(`delivery ${outcome.id} is dead after ${row.attempt_count} attempts: ${outcome.error ?? 'failed'}`);
      });
      dead ||= row?.status === 'dead';
    }
    if (dead) this.onDead();
  }
}
