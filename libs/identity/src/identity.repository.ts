import { Injectable } from '@nestjs/common';
import {
  type Account,
  type ApiKey,
  type IdempotencyStamp,
  isUniqueViolation,
  PrismaService,
  type PublicSurface,
  type Worker,
} from '@workline/db';

/** What authentication needs of an API key. */
export interface ApiKeyRow {
  id: string;
  accountId: string;
  workstreamId: string | null;
  /** The key, sealed with SECRETS_KEY. */
  keyCiphertext: string;
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

export interface WorkerPrincipal {
  workerId: string;
  email: string;
  name: string;
}

/** An API key as created: its secret only hashed and sealed. */
export type NewApiKey = Pick<ApiKey, 'id' | 'accountId' | 'workstreamId' | 'keyHash' | 'keyCiphertext' | 'prefix'>;

/** The identity rows of PostgreSQL: accounts, API keys, workers (IdentityService holds the rules). */
@Injectable()
export class IdentityRepository {
  constructor(private readonly prisma: PrismaService) {}

  async createAccount(account: Omit<Account, 'createdAt'>): Promise<void> {
    await this.prisma.account.create({ data: account });
  }

  findAccount(id: string): Promise<Omit<Account, 'passwordHash' | 'createdAt'> | null> {
    return this.prisma.account.findUnique({ where: { id }, select: { id: true, name: true, username: true } });
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    await this.prisma.account.update({ where: { id: accountId }, data: { passwordHash } });
  }

  /** Raw SQL: this runs on every cache miss of the request path. */
  async accountByUsername(username: string): Promise<AccountLogin | undefined> {
    const rows = await this.prisma.$queryRaw<
      AccountLogin[]
    >`SELECT id, username, password_hash AS "passwordHash" FROM identity_account WHERE username = ${username}`;
    return rows[0];
  }

  async createApiKey(key: NewApiKey): Promise<void> {
    await this.prisma.apiKey.create({ data: key });
  }

  findApiKey(id: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { id } });
  }

  /** Raw SQL: this runs on every cache miss of the request path. */
  async apiKeyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    const rows = await this.prisma.$queryRaw<ApiKeyRow[]>`
      SELECT id, account_id AS "accountId", workstream_id AS "workstreamId", key_ciphertext AS "keyCiphertext", revoked_at AS "revokedAt", expires_at AS "expiresAt", last_used_at AS "lastUsedAt"
      FROM identity_api_key WHERE key_hash = ${keyHash}`;
    return rows[0];
  }

  /** Sets last_used_at to `now` unless another instance wrote it since `threshold`. */
  async touchApiKey(id: string, now: Date, threshold: Date): Promise<void> {
    await this.prisma
      .$executeRaw`UPDATE identity_api_key SET last_used_at = ${now} WHERE id = ${id} AND (last_used_at IS NULL OR last_used_at < ${threshold})`;
  }

  /** At most `take` keys, oldest first, of an account and/or a workstream (every key without a filter). */
  listApiKeys(filter: { accountId?: string; workstreamId?: string }, take: number): Promise<ApiKey[]> {
    return this.prisma.apiKey.findMany({
      where: {
        ...(filter.accountId ? { accountId: filter.accountId } : {}),
        ...(filter.workstreamId ? { workstreamId: filter.workstreamId } : {}),
      },
      orderBy: { createdAt: 'asc' },
      take,
    });
  }

  async revokeApiKey(id: string, revokedAt: Date): Promise<void> {
    await this.prisma.apiKey.update({ where: { id }, data: { revokedAt } });
  }

  /** The key a rotation of `rotatedFromId` created under an Idempotency-Key. */
  rotationOf(rotatedFromId: string, idempotencyKey: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { rotatedFromId_idempotencyKey: { rotatedFromId, idempotencyKey } } });
  }

  /** Creates the new key of a rotation and sets when the old one expires, in one transaction. */
  async rotateApiKey(oldId: string, oldExpiresAt: Date, fresh: NewApiKey, stamp: IdempotencyStamp): Promise<void> {
    await this.prisma.$transaction([
      this.prisma.apiKey.create({ data: { ...fresh, ...stamp, rotatedFromId: oldId } }),
      this.prisma.apiKey.update({ where: { id: oldId }, data: { expiresAt: oldExpiresAt } }),
    ]);
  }

  /** False when the email (or token) is already taken. */
  async createWorker(worker: Omit<Worker, 'createdAt'>): Promise<boolean> {
    try {
      await this.prisma.worker.create({ data: worker });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Raw SQL: this runs on every cache miss of the request path. */
  async workerByTokenHash(tokenHash: string): Promise<WorkerPrincipal | undefined> {
    const rows = await this.prisma.$queryRaw<
      WorkerPrincipal[]
    >`SELECT id AS "workerId", email, name FROM identity_worker WHERE token_hash = ${tokenHash}`;
    return rows[0];
  }
}

export type IdentityRows = PublicSurface<IdentityRepository>;
