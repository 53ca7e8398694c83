import type { OversightMediaGrant } from '@workline/db';
import type { MediaGrantRows, NewMediaGrant } from '../media-grants.repository';

export class InMemoryMediaGrants implements MediaGrantRows {
  readonly rows = new Map<string, OversightMediaGrant>();
  /** Media keys a task uses (uploaded media, no bucket). */
  readonly usedByTasks = new Set<string>();
  /** Grants a task creation holds (FOR SHARE) right now. */
  readonly held = new Set<string>();

  async create(grant: NewMediaGrant): Promise<void> {
    this.rows.set(grant.id, { ...grant, createdAt: new Date() });
  }

  async expiredBefore(cutoff: Date, limit: number): Promise<string[]> {
    return [...this.rows.values()]
      .filter((grant) => grant.expiresAt < cutoff)
      .sort((a, b) => a.expiresAt.getTime() - b.expiresAt.getTime())
      .slice(0, limit)
      .map((grant) => grant.id);
  }

  async retire(id: string, beforeDelete: (usedByTask: boolean) => Promise<void>): Promise<boolean> {
    if (this.held.has(id) || !this.rows.has(id)) return false;
    await beforeDelete(this.usedByTasks.has(id));
    this.rows.delete(id);
    return true;
  }
}
