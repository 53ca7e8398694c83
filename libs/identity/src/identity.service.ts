import { Injectable } from '@nestjs/common';
import { DomainError, ErrorCode } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { randomBytes, randomUUID } from 'node:crypto';
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

const isUniqueViolation = (error: unknown) => (error as { code?: string })?.code === 'P2002';

/** Accounts (Basic credentials), API keys and workers: who may call Workline. */
@Injectable()
export class IdentityService {
  constructor(
    private readonly prisma: PrismaService,
    private readonly secrets: SecretBox,
  ) {}

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

  /** HTTP Basic check for the platform API; undefined when the credentials are wrong. */
  async authenticateAccount(username: string, password: string): Promise<{ accountId: string } | undefined> {
    const account = await this.prisma.account.findUnique({ where: { username } });
    // Verify against a dummy hash when the user is unknown, so timing does not reveal which usernames exist.
    const ok = await verifyPassword(password, account?.passwordHash ?? DUMMY_HASH);
    return account && ok ? { accountId: account.id } : undefined;
  }

  async createApiKey(accountId: string, workstreamId: string | null): Promise<{ id: string; key: string }> {
    const id = randomUUID();
    const key = newSecret('wlk');
    await this.prisma.apiKey.create({
      data: { id, accountId, workstreamId, keyHash: sha256(key), keyCiphertext: this.secrets.seal(key), prefix: key.slice(0, 8) },
    });
    return { id, key };
  }

  async authenticateApiKey(key: string): Promise<ApiKeyPrincipal | undefined> {
    const found = await this.prisma.apiKey.findUnique({ where: { keyHash: sha256(key) } });
    if (!found || found.revokedAt) return undefined;
    return { keyId: found.id, accountId: found.accountId, workstreamId: found.workstreamId };
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

  async authenticateWorker(token: string): Promise<WorkerPrincipal | undefined> {
    const worker = await this.prisma.worker.findUnique({ where: { tokenHash: sha256(token) } });
    return worker ? { workerId: worker.id, email: worker.email, name: worker.name } : undefined;
  }
}

const DUMMY_HASH = 'scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=';
