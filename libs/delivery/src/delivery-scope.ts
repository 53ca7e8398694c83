import { DomainError, ErrorCode, type DeliveryScope } from '@workline/contracts';
import type { Prisma } from '@workline/db';

/** The rows a caller may see (see DeliveryScope): another caller's delivery simply does not exist. */
export function scopeWhere(scope: DeliveryScope): Prisma.DeliveryWhereInput {
  switch (scope.kind) {
    case 'workstream':
      return { accountId: scope.account_id, workstreamId: scope.workstream_id ?? '' };
    case 'account-workstreams':
      return { accountId: scope.account_id, workstreamId: { not: null } };
    case 'platform':
      return { accountId: scope.account_id, workstreamId: null };
  }
}

/** Keyset cursor over (created_at desc, id desc): stable while new deliveries arrive. */
export function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    const createdAt = new Date(String(at));
    if (typeof id !== 'string' || typeof at !== 'string' || Number.isNaN(createdAt.getTime())) throw new Error('bad cursor');
    return { createdAt, id };
  } catch {
    throw new DomainError(ErrorCode.Validation, 'Invalid request: cursor is not a cursor this API returned', [
      { field: 'cursor', message: 'cursor is not a cursor this API returned' },
    ]);
  }
}
