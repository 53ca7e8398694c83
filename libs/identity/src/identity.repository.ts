import { Injectable } from '@nestjs/common';
import {
  type Account,
  type ApiKey,
  type Batcher,
  DbPool,
  type IdempotencyStamp,
  isUniqueViolation,
  PrismaService,
  type PublicSurface,
  type Statement,
  statement,
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

/*
 * What authentication reads on a cache miss, as prepared statements on the app's pool (docs/decisions.md, "Hot
 * paths on raw SQL"). Each takes the keys of every lookup of a batch ($1, a text array) and answers each row
 * with the key it was found by (`lookup_key`), so the lookups that miss together cost one round trip.
 */
const API_KEYS_BY_HASH = statement(
  'identity_api_keys_by_hash',
  `select key_hash as lookup_key, id, account_id as "accountId", workstream_id as "workstreamId", key_ciphertext as "keyCiphertext",
     revoked_at as "revokedAt", expires_at as "expiresAt", last_used_at as "lastUsedAt"
   from identity_api_key where key_hash = any($1::text[])`,
);

const WORKERS_BY_TOKEN_HASH = statement(
  'identity_workers_by_token_hash',
  'select token_hash as lookup_key, id as "workerId", email, name from identity_worker where token_hash = any($1::text[])',
);

const ACCOUNTS_BY_USERNAME = statement(
  'identity_accounts_by_username',
  'select username as lookup_key, id, username, password_hash as "passwordHash" from identity_account where username = any($1::text[])',
);

/** Sets last_used_at to $2 unless another instance wrote it since $3 (the threshold). */
const TOUCH_API_KEY = statement(
  'identity_api_key_touch',
  'update identity_api_key set last_used_at = $2 where id = $1 and (last_used_at is null or last_used_at < $3)',
);

/** A row of a lookup statement: the row, and the key that found it. */
type Found<R> = R & { lookup_key: string };

/** Lookups by a unique key that arrive together, read together: one statement per batch, each key answered with its row. */
function lookupBatcher<R extends object>(db: DbPool, name: string, lookup: Statement): Batcher<string, R | undefined> {
  return db.batcher(name, async (keys: string[]) => {
    const rows = new Map((await db.query<Found<R>>(lookup, [keys])).map(({ lookup_key, ...row }) => [lookup_key, row as unknown as R]));
    return keys.map((key) => rows.get(key));
  });
}

/** The identity rows of PostgreSQL: accounts, API keys, workers (IdentityService holds the rules). */
@Injectable()
export class IdentityRepository {
  private readonly apiKeysByHash: Batcher<string, ApiKeyRow | undefined>;
  private readonly workersByTokenHash: Batcher<string, WorkerPrincipal | undefined>;
  private readonly accountsByUsername: Batcher<string, AccountLogin | undefined>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DbPool,
  ) {
    this.apiKeysByHash = lookupBatcher(db, 'identity_api_key_lookups', API_KEYS_BY_HASH);
    this.workersByTokenHash = lookupBatcher(db, 'identity_worker_lookups', WORKERS_BY_TOKEN_HASH);
    this.accountsByUsername = lookupBatcher(db, 'identity_account_lookups', ACCOUNTS_BY_USERNAME);
  }

  async createAccount(account: Omit<Account, 'createdAt'>): Promise<void> {
    await this.prisma.account.create({ data: account });
  }

  findAccount(id: string): Promise<Omit<Account, 'passwordHash' | 'createdAt'> | null> {
    return this.prisma.account.findUnique({ where: { id }, select: { id: true, name: true, username: true } });
  }

  async setPasswordHash(accountId: string, passwordHash: string): Promise<void> {
    await this.prisma.account.update({ where: { id: accountId }, data: { passwordHash } });
  }

  /** A prepared statement, batched: this runs on every cache miss of the request path. */
  accountByUsername(username: string): Promise<AccountLogin | undefined> {
    return this.accountsByUsername.submit(username);
  }

  async createApiKey(key: NewApiKey): Promise<void> {
    await this.prisma.apiKey.create({ data: key });
  }

  findApiKey(id: string): Promise<ApiKey | null> {
    return this.prisma.apiKey.findUnique({ where: { id } });
  }

  /** A prepared statement, batched: this runs on every cache miss of the request path. */
  apiKeyByHash(keyHash: string): Promise<ApiKeyRow | undefined> {
    return this.apiKeysByHash.submit(keyHash);
  }

  /** Sets last_used_at to `now` unless another instance wrote it since `threshold`. */
  async touchApiKey(id: string, now: Date, threshold: Date): Promise<void> {
    await this.db.query(TOUCH_API_KEY, [id, now, threshold]);
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

  /** A prepared statement, batched: this runs on every cache miss of the request path. */
  workerByTokenHash(tokenHash: string): Promise<WorkerPrincipal | undefined> {
    return this.workersByTokenHash.submit(tokenHash);
  }
}

export type IdentityRows = PublicSurface<IdentityRepository>;
