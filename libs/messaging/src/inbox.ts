import { Injectable } from '@nestjs/common';
import { PrismaService } from '@workline/db';
import type { Tx } from './outbox';

export type InboxResult<T> = { applied: true; result: T } | { applied: false };

/**
 * Applies an event at most once per consumer: the inbox row and the handler's writes commit in one
 * transaction, so a redelivered event (relay published twice, consumer restarted before committing its
 * offset) finds its row and is skipped.
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
