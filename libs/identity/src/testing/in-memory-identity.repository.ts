import type { Account, ApiKey, IdempotencyStamp, Worker } from '@workline/db';
import type { AccountLogin, ApiKeyRow, IdentityRows, NewApiKey, WorkerPrincipal } from '../identity.repository';

/**
 * An in-memory stand-in for IdentityRepository, for IdentityService's unit tests: rows in maps, so a test
 * drives the rules with no database. The SQL itself is proven by the identity integration suites.
 */
export class InMemoryIdentity implements IdentityRows {
  readonly accounts = new Map<string, Account>();
  readonly apiKeys = new Map<string, ApiKey>();
  readonly workers = new Map<string, Worker>();
  /** Every last_used_at write asked for: which key, when, and unless written since when. */
  readonly touches: { id: string; now: Date; threshold: Date }[] = [];

  async createAccount(account: Omit<Account, 'createdAt'>): Promise<void> {
    this.accounts.set(account.id, { ...account, createdAt: new Date() });
  }

  async findAccount(id: string) {
    const account = this.accounts.get(id);
    return account ? { id: account.id, name: account.name, username: account.username } : null;
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    this.accounts.set(accountId, { ...this.accounts.get(accountId)!, passwordHash });
  }

  async accountByUsername(username: string): Promise<AccountLogin | undefined> {
    const account = [...this.accounts.values()].find((row) => row.username === username);
    return account && { id: account.id, username: account.username, passwordHash: account.passwordHash };
  }

  async createApiKey(key: NewApiKey, extra: Partial<ApiKey> = {}): Promise<void> {
    const row: ApiKey = {
      createdAt: new Date(),
      lastUsedAt: null,
      revokedAt: null,
      expiresAt: null,
      rotatedFromId: null,
      idempotencyKey: null,
      idempotencyHash: null,
      ...key,
      ...extra,
    };
    this.apiKeys.set(key.id, row);
  }

  async findApiKey(id: string): Promise<ApiKey | null> {
    return this.apiKeys.get(id) ?? null;
  }

  async apiKeyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    const key = [...this.apiKeys.values()].find((row) => row.keyHash === keyHash);
    return (
      key && { id: key.id, accountId: key.accountId, workstreamId: key.workstreamId, keyCiphertext: key.keyCiphertext, ...pickDates(key) }
    );
  }

  async touchApiKey(id: string, now: Date, threshold: Date): Promise<void> {
    this.touches.push({ id, now, threshold });
  }

  async listApiKeys(filter: { accountId?: string; workstreamId?: string }, take: number): Promise<ApiKey[]> {
    return [...this.apiKeys.values()]
      .filter(
        (key) =>
          (!filter.accountId || key.accountId === filter.accountId) && (!filter.workstreamId || key.workstreamId === filter.workstreamId),
      )
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
      .slice(0, take);
  }

  async revokeApiKey(id: string, revokedAt: Date): Promise<void> {
    this.apiKeys.set(id, { ...this.apiKeys.get(id)!, revokedAt });
  }

  async rotationOf(rotatedFromId: string, idempotencyKey: string): Promise<ApiKey | null> {
    return [...this.apiKeys.values()].find((key) => key.rotatedFromId === rotatedFromId && key.idempotencyKey === idempotencyKey) ?? null;
  }

  async rotateApiKey(oldId: string, oldExpiresAt: Date, fresh: NewApiKey, stamp: IdempotencyStamp): Promise<void> {
    await this.createApiKey(fresh, { ...stamp, rotatedFromId: oldId });
    this.apiKeys.set(oldId, { ...this.apiKeys.get(oldId)!, expiresAt: oldExpiresAt });
  }

  async createWorker(worker: Omit<Worker, 'createdAt'>): Promise<boolean> {
    if ([...this.workers.values()].some((row) => row.email === worker.email || row.tokenHash === worker.tokenHash)) return false;
    this.workers.set(worker.id, { ...worker, createdAt: new Date() });
    return true;
  }

  async workerByTokenHash(tokenHash: string): Promise<WorkerPrincipal | undefined> {
    const worker = [...this.workers.values()].find((row) => row.tokenHash === tokenHash);
    return worker && { workerId: worker.id, email: worker.email, name: worker.name };
  }
}

const pickDates = ({ revokedAt, expiresAt, lastUsedAt }: ApiKey) => ({ revokedAt, expiresAt, lastUsedAt });
