import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { createOnce, type PublicSurface } from '@workline/db';
import { randomBytes, randomUUID } from 'node:crypto';
import { IdentityEpoch } from './identity-epoch';
import { type AccountLogin, type ApiKeyRow, type IdentityRows, IdentityRepository, type WorkerPrincipal } from './identity.repository';
import { hashPassword, newSecret, SecretBox, sha256, verifyPassword } from '@workline/secrets';

export interface NewAccount {
  id: string;
  name: string;
  username: string;
  password: string;
}

export interface ApiKeyPrincipal {
  keyId: string;
  accountId: string;
  workstreamId: string | null;
}

/** An API key as listed to operators: never its secret. */
export interface ApiKeyView {
  id: string;
  scope: 'account' | 'workstream';
  account_id: string;
  workstream_id: string | null;
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  expires_at: string | null;
  rotated_from_id: string | null;
}

/** The most keys an operator's listing answers. */
const API_KEY_LIST_MAX = 1000;

/** last_used_at is written at most this often per key, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** Counts what authentication costs (exported as metrics by the gateway). */
export interface IdentityObserver {
  passwordChecked(): void;
  /** One identity looked up in PostgreSQL (a cache miss of authentication). */
  lookedUp(kind: 'api-key' | 'account' | 'worker'): void;
}

export const IDENTITY_OBSERVER = Symbol('IdentityObserver');

const NO_OBSERVER: IdentityObserver = { passwordChecked: () => undefined, lookedUp: () => undefined };

const slug = (name: string) =>
  name
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 24) || 'account';

/** Accounts (Basic credentials), API keys and workers: who may call Workline. */
@Injectable()
export class IdentityService {
  constructor(
    @Inject(IdentityRepository) private readonly repository: IdentityRows,
    private readonly secrets: SecretBox,
    @Optional() @Inject(IdentityEpoch) private readonly epoch?: PublicSurface<IdentityEpoch>,
    @Optional() @Inject(IDENTITY_OBSERVER) private readonly observer: IdentityObserver = NO_OBSERVER,
  ) {}

  /**
   * Makes a committed identity change take effect on every gateway before the admin call answers: each
   * gateway's cached principals stop being trusted. Without Redis the change is stored but could not be
   * announced, so the call answers 503 rather than a 2xx that might not hold everywhere.
   */
  private async announceChange(what: string): Promise<void> {
    try {
      await this.epoch?.bump();
    } catch {
      throw new DomainError(
        ErrorCode.Unavailable,
        `${what} is stored, but the gateways could not be told (Redis unavailable): retry the call`,
      );
    }
  }

  async createAccount(name: string): Promise<NewAccount> {
    const id = randomUUID();
    const username = `${slug(name)}-${randomBytes(3).toString('hex')}`;
    const password = randomBytes(18).toString('base64url');
    await this.repository.createAccount({ id, name, username, passwordHash: await hashPassword(password) });
    return { id, name, username, password };
  }

  async requireAccount(accountId: string): Promise<{ id: string; name: string }> {
    const account = await this.repository.findAccount(accountId);
    if (!account) throw DomainError.notFound(`account ${accountId} not found`);
    return { id: account.id, name: account.name };
  }

  /** A workstream key (workstreamId set) or a project-level key valid for every workstream of the account. */
  async createApiKey(accountId: string, workstreamId: string | null): Promise<{ id: string; key: string }> {
    const { row, key } = this.newApiKeyRow(accountId, workstreamId);
    await this.repository.createApiKey(row);
    return { id: row.id, key };
  }

  private newApiKeyRow(accountId: string, workstreamId: string | null) {
    const key = newSecret('wlk');
    const row = {
      id: randomUUID(),
      accountId,
      workstreamId,
      keyHash: sha256(key),
      keyCiphertext: this.secrets.seal(key),
      prefix: key.slice(0, 8),
    };
    return { row, key };
  }

  /** The row behind an API key's hash (read on every cache miss of the request path). */
  async findApiKey(keyHash: string): Promise<ApiKeyRow | undefined> {
    this.observer.lookedUp('api-key');
    return this.repository.apiKeyByHash(keyHash);
  }

  /** Records a key's use; written at most once a minute per key, so authentication stays a read. */
  touchApiKey(id: string, lastUsedAt: Date | null, now = new Date()): boolean {
    if (lastUsedAt && now.getTime() - lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return false;
    const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    void this.repository.touchApiKey(id, now, threshold).catch(() => undefined);
    return true;
  }

  async findAccountByUsername(username: string): Promise<AccountLogin | undefined> {
    this.observer.lookedUp('account');
    return this.repository.accountByUsername(username);
  }

  /** scrypt, tens of milliseconds on the shared thread pool: a dummy hash when the account is unknown, so timing does not tell. */
  async checkPassword(password: string, account: AccountLogin | undefined): Promise<boolean> {
    this.observer.passwordChecked();
    const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    return ok && account !== undefined;
  }

  async findWorker(tokenHash: string): Promise<WorkerPrincipal | undefined> {
    this.observer.lookedUp('worker');
    return this.repository.workerByTokenHash(tokenHash);
  }

  async listApiKeys(filter: { accountId?: string; workstreamId?: string }): Promise<ApiKeyView[]> {
    const rows = await this.repository.listApiKeys(filter, API_KEY_LIST_MAX);
    return rows.map((row) => ({
      id: row.id,
      scope: row.workstreamId ? 'workstream' : 'account',
      account_id: row.accountId,
      workstream_id: row.workstreamId,
      prefix: row.prefix,
      created_at: row.createdAt.toISOString(),
      last_used_at: row.lastUsedAt?.toISOString() ?? null,
      revoked_at: row.revokedAt?.toISOString() ?? null,
      expires_at: row.expiresAt?.toISOString() ?? null,
      rotated_from_id: row.rotatedFromId,
    }));
  }

  /** Revokes a key at once (idempotent: revoking a revoked key keeps its first revocation time). */
  async revokeApiKey(id: string): Promise<void> {
    const found = await this.repository.findApiKey(id);
    if (!found) throw DomainError.notFound(`API key ${id} not found`);
    if (!found.revokedAt) await this.repository.revokeApiKey(id, new Date());
    await this.announceChange(`The revocation of API key ${id}`);
  }

  /**
   * Issues a new key of the same scope; the old one keeps working for `overlapSeconds`, then stops.
   * Tasks created with the new key are signed with the new key; earlier tasks keep their creating key.
   */
  /**
   * A new key of the same scope; the old one keeps working for the overlap. With an Idempotency-Key, a retry
   * of the same rotation answers the key it created (sealed at rest, as every key) instead of a second one,
   * also when the old key has expired since; the announcement is made again, since the first answer may have
   * been the 503 of a Redis that could not be told.
   */
  async rotateApiKey(id: string, overlapSeconds: number, idempotencyKey?: string): Promise<{ id: string; key: string; replayed: boolean }> {
    const rotation = await createOnce({
      key: idempotencyKey,
      request: { overlap_seconds: overlapSeconds },
      find: (key) => this.repository.rotationOf(id, key),
      replay: (row) => ({ id: row.id, key: this.secrets.open(row.keyCiphertext) }),
      create: async (stamp) => {
        const old = await this.repository.findApiKey(id);
        if (!old) throw DomainError.notFound(`API key ${id} not found`);
        const now = new Date();
        if (old.revokedAt || (old.expiresAt && old.expiresAt <= now)) {
          throw new DomainError(ErrorCode.Conflict, `API key ${id} is ${old.revokedAt ? 'revoked' : 'expired'} and cannot be rotated`);
        }
        const fresh = this.newApiKeyRow(old.accountId, old.workstreamId);
        const overlapEnds = new Date(now.getTime() + overlapSeconds * 1000);
        await this.repository.rotateApiKey(
          id,
          old.expiresAt && old.expiresAt < overlapEnds ? old.expiresAt : overlapEnds,
          fresh.row,
          stamp,
        );
        return { id: fresh.row.id, key: fresh.key };
      },
    });
    await this.announceChange(`The rotation of API key ${id}`);
    return { ...rotation.value!, replayed: rotation.replayed };
  }

  /** A new password for the account's Basic credentials; the old one stops at once. */
  async resetPassword(accountId: string): Promise<{ id: string; username: string; password: string }> {
    const account = await this.repository.findAccount(accountId);
    if (!account) throw DomainError.notFound(`account ${accountId} not found`);
    const password = randomBytes(18).toString('base64url');
    await this.repository.setPasswordHash(accountId, await hashPassword(password));
    await this.announceChange(`The new password of account ${accountId}`);
    return { id: account.id, username: account.username, password };
  }

  async createWorker(email: string, name: string): Promise<{ id: string; token: string }> {
    const id = randomUUID();
    const token = newSecret('wkr');
    const created = await this.repository.createWorker({ id, email: email.toLowerCase(), name, tokenHash: sha256(token) });
    if (!created) throw new DomainError(ErrorCode.Conflict, `a worker with email ${email} already exists`);
    return { id, token };
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
