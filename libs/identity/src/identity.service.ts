import { Inject, Injectable, Optional } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { createOnce, isUniqueViolation, PrismaService } from '@workline/db';
import { randomBytes, randomUUID } from 'node:crypto';
import { IdentityEpoch } from './identity-epoch';
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

/** last_used_at is written at most this often per key, so authentication stays a read. */
const LAST_USED_RESOLUTION_MS = 60_000;

/** What authentication needs of an API key. */
export interface ApiKeyRow {
  id: string;
  accountId: string;
  workstreamId: string | null;
  revokedAt: Date | null;
  expiresAt: Date | null;
  lastUsedAt: Date | null;
}

/** What a password check needs of an account. */
export interface AccountLogin {
  id: string;
  username: string;
  passwordHash: string;
}

/** Counts what authentication costs (exported as metrics by the gateway). */
export interface IdentityObserver {
  passwordChecked(): void;
  /** One identity looked up in PostgreSQL (a cache miss of authentication). */
  lookedUp(kind: 'api-key' | 'account' | 'worker'): void;
}

export const IDENTITY_OBSERVER = Symbol('IdentityObserver');

const NO_OBSERVER: IdentityObserver = { passwordChecked: () => undefined, lookedUp: () => undefined };

export interface WorkerPrincipal {
  workerId: string;
  email: string;
  name: string;
}

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
    private readonly prisma: PrismaService,
    private readonly secrets: SecretBox,
    @Optional() private readonly epoch?: IdentityEpoch,
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
    await this.prisma.account.create({ data: { id, name, username, passwordHash: await hashPassword(password) } });
    return { id, name, username, password };
  }

  async requireAccount(accountId: string): Promise<{ id: string; name: string }> {
    const account = await this.prisma.account.findUnique({ where: { id: accountId }, select: { id: true, name: true } });
    if (!account) throw DomainError.notFound(`account ${accountId} not found`);
    return account;
  }

  /** A workstream key (workstreamId set) or a project-level key valid for every workstream of the account. */
  async createApiKey(accountId: string, workstreamId: string | null): Promise<{ id: string; key: string }> {
    const { row, key } = this.newApiKeyRow(accountId, workstreamId);
    await this.prisma.apiKey.create({ data: row });
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

  /** The row behind an API key's hash (raw SQL: this runs on every cache miss of the request path). */
  async findApiKey(keyHash: string): Promise<ApiKeyRow | undefined> {
    this.observer.lookedUp('api-key');
    const rows = await this.prisma.$queryRaw<ApiKeyRow[]>`
      SELECT id, account_id AS "accountId", workstream_id AS "workstreamId", revoked_at AS "revokedAt", expires_at AS "expiresAt", last_used_at AS "lastUsedAt"
      FROM identity_api_key WHERE key_hash = ${keyHash}`;
    return rows[0];
  }

  /** Records a key's use; written at most once a minute per key, so authentication stays a read. */
  touchApiKey(id: string, lastUsedAt: Date | null, now = new Date()): boolean {
    if (lastUsedAt && now.getTime() - lastUsedAt.getTime() <= LAST_USED_RESOLUTION_MS) return false;
    const threshold = new Date(now.getTime() - LAST_USED_RESOLUTION_MS);
    void this.prisma
      .$executeRaw`UPDATE identity_api_key SET last_used_at = ${now} WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${threshold})`.catch(
      () => undefined,
    );
    return true;
  }

  async findAccountByUsername(username: string): Promise<AccountLogin | undefined> {
    this.observer.lookedUp('account');
    const rows = await this.prisma.$queryRaw<
      AccountLogin[]
    >`SELECT id, username, password_hash AS "passwordHash" FROM identity_account WHERE username = ${username}`;
    return rows[0];
  }

  /** scrypt, tens of milliseconds on the shared thread pool: a dummy hash when the account is unknown, so timing does not tell. */
  async checkPassword(password: string, account: AccountLogin | undefined): Promise<boolean> {
    this.observer.passwordChecked();
    const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    return ok && account !== undefined;
  }

  async findWorker(tokenHash: string): Promise<WorkerPrincipal | undefined> {
    this.observer.lookedUp('worker');
    const rows = await this.prisma.$queryRaw<
      WorkerPrincipal[]
    >`SELECT id AS "workerId", email, name FROM identity_worker WHERE token_hash = ${tokenHash}`;
    return rows[0];
  }

  async listApiKeys(filter: { accountId?: string; workstreamId?: string }): Promise<ApiKeyView[]> {
    const rows = await this.prisma.apiKey.findMany({
      where: {
        ...(filter.accountId ? { accountId: filter.accountId } : {}),
        ...(filter.workstreamId ? { workstreamId: filter.workstreamId } : {}),
      },
      orderBy: { createdAt: 'asc' },
      take: 1000,
    });
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
    const found = await this.prisma.apiKey.findUnique({ where: { id } });
    if (!found) throw DomainError.notFound(`API key ${id} not found`);
    if (!found.revokedAt) await this.prisma.apiKey.update({ where: { id }, data: { revokedAt: new Date() } });
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
      find: (key) => this.prisma.apiKey.findUnique({ where: { rotatedFromId_idempotencyKey: { rotatedFromId: id, idempotencyKey: key } } }),
      replay: (row) => ({ id: row.id, key: this.secrets.open(row.keyCiphertext) }),
      create: async (stamp) => {
        const old = await this.prisma.apiKey.findUnique({ where: { id } });
        if (!old) throw DomainError.notFound(`API key ${id} not found`);
        const now = new Date();
        if (old.revokedAt || (old.expiresAt && old.expiresAt <= now)) {
          throw new DomainError(ErrorCode.Conflict, `API key ${id} is ${old.revokedAt ? 'revoked' : 'expired'} and cannot be rotated`);
        }
        const fresh = this.newApiKeyRow(old.accountId, old.workstreamId);
        const overlapEnds = new Date(now.getTime() + overlapSeconds * 1000);
        await this.prisma.$transaction([
          this.prisma.apiKey.create({ data: { ...fresh.row, ...stamp, rotatedFromId: old.id } }),
          this.prisma.apiKey.update({
            where: { id },
            data: { expiresAt: old.expiresAt && old.expiresAt < overlapEnds ? old.expiresAt : overlapEnds },
          }),
        ]);
        return { id: fresh.row.id, key: fresh.key };
      },
    });
    await this.announceChange(`The rotation of API key ${id}`);
    return { ...rotation.value!, replayed: rotation.replayed };
  }

  /** A new password for the account's Basic credentials; the old one stops at once. */
  async resetPassword(accountId: string): Promise<{ id: string; username: string; password: string }> {
    const account = await this.prisma.account.findUnique({ where: { id: accountId } });
    if (!account) throw DomainError.notFound(`account ${accountId} not found`);
    const password = randomBytes(18).toString('base64url');
    await this.prisma.account.update({ where: { id: accountId }, data: { passwordHash: await hashPassword(password) } });
    await this.announceChange(`The new password of account ${accountId}`);
    return { id: account.id, username: account.username, password };
  }

  async createWorker(email: string, name: string): Promise<{ id: string; token: string }> {
    const id = randomUUID();
    const token = newSecret('wkr');
    try {
      await this.prisma.worker.create({ data: { id, email: email.toLowerCase(), name, tokenHash: sha256(token) } });
    } catch (error) {
      if (isUniqueViolation(error)) throw new DomainError(ErrorCode.Conflict, `a worker with email ${email} already exists`);
      throw error;
    }
    return { id, token };
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
