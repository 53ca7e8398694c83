import { type BeforeApplicationShutdown, Injectable, Logger, type OnApplicationBootstrap } from '@nestjs/common';
import { errorMessage, TOPIC_SPECS } from '@workline/contracts';
import { DbPool, PrismaService, statement } from '@workline/db';
import type { Tx } from './outbox-writer';
import { PRUNE_CHUNK, pruneAll } from './prune';

export type InboxResult<T> = { applied: true; result: T } | { applied: false };

/**
 * How long an inbox row is kept: a day longer than any topic keeps its messages. An event can only come
 * back while Kafka still holds it (a consumer restarted before committing, a group's offsets reset, a
 * dead letter replayed), so past that its row guards nothing.
 */
export const INBOX_RETENTION_MS = (Math.max(...Object.values(TOPIC_SPECS).map((spec) => spec.retentionHours)) + 24) * 3_600_000;

/** How often an app prunes the inbox: the rows expire by the day, an hour late costs nothing. */
const PRUNE_EVERY_MS = 3_600_000;

/**
 * Deletes up to $2 rows applied more than $1 ms ago. processed_at's BRIN index (rows are written in time
 * order) finds the old pages without reading the young ones.
 */
const PRUNE_EXPIRED = statement(
  'inbox_prune_expired',
  `with gone as (
     delete from messaging_inbox where ctid in (
       select ctid from messaging_inbox where processed_at < now() - $1 * interval '1 millisecond' limit $2)
     returning 1)
   select count(*)::int as deleted from gone`,
);

/**
 * Applies an event at most once per consumer: the inbox row and the handler's writes commit in one
 * transaction, so a redelivered event (relay published twice, consumer restarted before committing its
 * offset) finds its row and is skipped. InboxPruner deletes the rows no topic can hand back any more.
 */
@Injectable()
export class Inbox {
  constructor(private readonly prisma: PrismaService) {}

  once<T>(consumer: string, eventId: string, apply: (tx: Tx) => Promise<T>): Promise<InboxResult<T>> {
    return this.prisma.$transaction(async (tx) => {
      const inserted =
        await tx.$executeRaw`insert into messaging_inbox (consumer, event_id) values (${consumer}, ${eventId}) on conflict do nothing`;
      if (inserted === 0) return { applied: false } as const;
      return { applied: true, result: await apply(tx) } as const;
    });
  }
}

/**
 * Keeps the inbox to what could still come back: every hour, deletes the rows older than
 * INBOX_RETENTION_MS. Every app runs one (the rule is the same for all consumers); two at once delete
 * disjoint rows or wait for each other.
 */
@Injectable()
export class InboxPruner implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger(InboxPruner.name);
  private timer?: NodeJS.Timeout;
  private pruning?: Promise<unknown>;

  constructor(private readonly db: DbPool) {}

  /** Deletes every consumer's rows applied longer ago than `retentionMs`; returns how many. */
  pruneExpired(retentionMs = INBOX_RETENTION_MS): Promise<number> {
    return pruneAll(async () => (await this.db.query<{ deleted: number }>(PRUNE_EXPIRED, [retentionMs, PRUNE_CHUNK]))[0].deleted);
  }

  onApplicationBootstrap(): void {
    this.timer = setInterval(() => {
      this.pruning ??= this.pruneExpired()
        .then((deleted) => deleted && this.logger.log(`inbox: ${deleted} rows past their retention deleted`))
        .catch((error: unknown) => this.logger.warn(`inbox prune failed: ${errorMessage(error)}`))
        .finally(() => (this.pruning = undefined));
    }, PRUNE_EVERY_MS).unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.pruning;
  }
}
