import { type DeliveryScope } from '@workline/contracts';
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
