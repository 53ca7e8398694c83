import { Logger } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import { type DbPool, statement } from '@workline/db';
import { PRUNE_CHUNK, pruneAll } from './prune';

/**
 * Deletes up to $3 of the source's rows published more than $2 ms ago. created_at comes first: its BRIN
 * index (rows are written in time order) finds the old pages without reading the young ones, and a row is
 * always published after it was written.
 */
const PRUNE_PUBLISHED = statement(
  'outbox_prune_published',
  `with gone as (
     delete from messaging_outbox where seq in (
       select seq from messaging_outbox
       where created_at < now() - $2 * interval '1 millisecond' and source = $1
         and published_at < now() - $2 * interval '1 millisecond'
       limit $3)
     returning 1)
   select count(*)::int as deleted from gone`,
);

/**
 * Deletes a source's outbox rows published longer ago than the retention (what was sent stays that long, for
 * audits and support). Unpublished and dead-lettered rows are never touched; a retention of 0 keeps all.
 */
export class OutboxPruning {
  private readonly logger = new Logger('OutboxRelay');
  private nextPruneAt = 0;

  constructor(
    private readonly db: DbPool,
    private readonly source: string,
    private readonly retentionMs: number,
    /** How often it prunes when there is little to prune. */
    private readonly pruneEveryMs: number,
  ) {}

  /** Deletes every row past the retention; returns how many. */
  prunePublished(): Promise<number> {
    return pruneAll(() => this.pruneChunk());
  }

  /**
   * One chunk of pruning when it is due: every `pruneEveryMs`, or at the next idle turn while a full chunk
   * says more is waiting (a long-kept outbox is worked down a chunk a turn, never holding events back).
   */
  async pruneWhenDue(): Promise<void> {
    if (Date.now() < this.nextPruneAt) return;
    let deleted = 0;
    try {
      deleted = await this.pruneChunk();
      if (deleted) this.logger.log(`outbox (${this.source}): ${deleted} published rows past their retention deleted`);
    } catch (error) {
      this.logger.warn(`outbox prune (${this.source}) failed: ${errorMessage(error)}`);
    }
    this.nextPruneAt = deleted === PRUNE_CHUNK ? 0 : Date.now() + this.pruneEveryMs;
  }

  private async pruneChunk(): Promise<number> {
    if (!this.retentionMs) return 0;
    const [{ deleted }] = await this.db.query<{ deleted: number }>(PRUNE_PUBLISHED, [this.source, this.retentionMs, PRUNE_CHUNK]);
    return deleted;
  }
}
