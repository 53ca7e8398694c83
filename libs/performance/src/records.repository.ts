import { Injectable } from '@nestjs/common';
import { type Batcher, DbPool } from '@workline/db';
import { OutboxRelay } from '@workline/messaging';
import { PERFORMANCE_KINDS, type PerformanceKind } from '@workline/contracts';
import { prepareStore, type RecordToStore, storeRecords, type StoreOutcome } from './record-store';

/**
 * The record tables, written in group commits: records that arrive together are written together, one
 * statement (one commit) per batch and kind, QC events included (docs/decisions.md), with the outcomes a
 * one-by-one order would have given.
 */
@Injectable()
export class RecordsRepository {
  private readonly batchers: Record<PerformanceKind, Batcher<RecordToStore, StoreOutcome>>;

  constructor(
    private readonly db: DbPool,
    private readonly outbox: OutboxRelay,
  ) {
    const batcher = (kind: PerformanceKind) => db.batcher(`${kind}_records`, (items: RecordToStore[]) => this.write(kind, items));
    this.batchers = Object.fromEntries(PERFORMANCE_KINDS.map((kind) => [kind, batcher(kind)])) as RecordsRepository['batchers'];
  }

  /** Resolves once the record's batch is committed. */
  async store(kind: PerformanceKind, item: RecordToStore): Promise<StoreOutcome> {
    return this.batchers[kind].submit(item);
  }

  private async write(kind: PerformanceKind, items: RecordToStore[]): Promise<StoreOutcome[]> {
    const result = await storeRecords(this.db, prepareStore(kind, items), null);
    if (result.qcEvents) this.outbox.poke();
    return result.outcomes;
  }
}
