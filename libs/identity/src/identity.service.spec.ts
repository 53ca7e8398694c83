import 'reflect-metadata';
import { ErrorCode } from '@workline/contracts';
import { SecretBox, sha256, verifyPassword } from '@workline/secrets';
import type { IdentityEpoch } from './identity-epoch';
import { type IdentityObserver, IdentityService } from './identity.service';
import { InMemoryIdentity } from './testing/in-memory-identity.repository';

const domainError = (code: ErrorCode, message: string) => expect.objectContaining({ code, message });

describe('IdentityService', () => {
  const box = new SecretBox('a-secrets-key-of-at-least-thirty-two-characters');
  let repository: InMemoryIdentity;
  let service: IdentityService;
  /** Epoch bumps announced to the gateways; `redisDown` makes the next ones fail. */
  let bumps: number;
  let redisDown: boolean;
  let counts: { passwordChecked: number; lookedUp: string[] };

  beforeEach(() => {
    repository = new InMemoryIdentity();
    bumps = 0;
    redisDown = false;
    counts = { passwordChecked: 0, lookedUp: [] };
    const epoch = {
      bump: async () => {
        if (redisDown) throw new Error('ECONNREFUSED');
        bumps++;
      },
    } as unknown as IdentityEpoch;
    const observer: IdentityObserver = { passwordChecked: () => counts.passwordChecked++, lookedUp: (kind) => counts.lookedUp.push(kind) };
    service = new IdentityService(repository, box, epoch, observer);
  });

  describe('accounts', () => {
    it('creates an account with a username from its name and a password stored only as a hash', async () => {
      const account = await service.createAccount('Acme Corp. & Co');
      expect(account).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        name: 'Acme Corp. & Co',
        username: expect.stringMatching(/^acme-corp-co-[0-9a-f]{6}$/),
        password: expect.any(String),
      });
      expect(account.password).toHaveLength(24);
      const stored = repository.accounts.get(account.id)!;
      expect(stored.passwordHash).not.toContain(account.password);
      expect(await verifyPassword(account.password, stored.passwordHash)).toBe(true);
      expect((await service.createAccount('!!!')).username).toMatch(/^account-[0-9a-f]{6}$/);
    });

    it('answers an account by id with its name only, and an unknown one as not found', async () => {
      const { id } = await service.createAccount('Acme');
      expect(await service.requireAccount(id)).toEqual({ id, name: 'Acme' });
      await expect(service.requireAccount('nope')).rejects.toEqual(domainError(ErrorCode.NotFound, 'account nope not found'));
    });

    it('checks a password against its account, and spends the same scrypt on an unknown username', async () => {
      const { username, password } = await service.createAccount('Acme');
      const login = await service.findAccountByUsername(username);
      expect(login).toMatchObject({ username });
      expect(await service.checkPassword(password, login)).toBe(true);
      expect(await service.checkPassword('wrong', login)).toBe(false);
      expect(await service.findAccountByUsername('nobody')).toBeUndefined();
      expect(await service.checkPassword(password, undefined)).toBe(false);
      expect(counts).toEqual({ passwordChecked: 3, lookedUp: ['account', 'account'] });
    });

    it('resets a password: the new one works, the old one stops, and the gateways are told', async () => {
      const account = await service.createAccount('Acme');
      const reset = await service.resetPassword(account.id);
      expect(reset).toEqual({ id: account.id, username: account.username, password: expect.any(String) });
      const { passwordHash } = repository.accounts.get(account.id)!;
      expect(await verifyPassword(reset.password, passwordHash)).toBe(true);
      expect(await verifyPassword(account.password, passwordHash)).toBe(false);
      expect(bumps).toBe(1);
      await expect(service.resetPassword('nope')).rejects.toEqual(domainError(ErrorCode.NotFound, 'account nope not found'));
    });
  });

  describe('API keys', () => {
    const accountId = 'acc-1';
    // Written directly: hashing a password (scrypt) is the accounts' subject, not the keys'.
    beforeEach(() => repository.createAccount({ id: accountId, name: 'Acme', username: 'acme-000000', passwordHash: 'unused' }));

    it('creates a key kept hashed for lookup and sealed at rest, found again by its hash', async () => {
      const { id, key } = await service.createApiKey(accountId, 'ws-1');
      expect(key).toMatch(/^wlk_[A-Za-z0-9_-]{32}$/);
      const row = repository.apiKeys.get(id)!;
      expect(row).toMatchObject({ accountId, workstreamId: 'ws-1', keyHash: sha256(key), prefix: key.slice(0, 8) });
      expect(box.open(row.keyCiphertext)).toBe(key);
      expect(await service.findApiKey(sha256(key))).toEqual({
        id,
        accountId,
        workstreamId: 'ws-1',
        keyCiphertext: row.keyCiphertext,
        revokedAt: null,
        expiresAt: null,
        lastUsedAt: null,
      });
      expect(await service.findApiKey(sha256('unknown'))).toBeUndefined();
      expect(counts.lookedUp).toEqual(['api-key', 'api-key']);
    });

    it('records the use of a key at most once a minute', () => {
      const now = new Date('2026-11-25T12:00:00.000Z');
      const secondsAgo = (seconds: number) => new Date(now.getTime() - seconds * 1000);
      expect(service.touchApiKey('k1', null, now)).toBe(true);
      expect(service.touchApiKey('k1', secondsAgo(60), now)).toBe(false);
      expect(service.touchApiKey('k1', secondsAgo(61), now)).toBe(true);
      expect(repository.touches).toEqual([
        { id: 'k1', now, threshold: secondsAgo(60) },
        { id: 'k1', now, threshold: secondsAgo(60) },
      ]);
    });

    it('lists keys oldest first by account or workstream, with their scope and never their secret', async () => {
      const project = await service.createApiKey(accountId, null);
      repository.apiKeys.get(project.id)!.createdAt = new Date('2026-01-01T00:00:00.000Z');
      const workstream = await service.createApiKey(accountId, 'ws-1');
      await service.createApiKey('acc-2', 'ws-9');

      const listed = await service.listApiKeys({ accountId });
      expect(listed).toEqual([
        {
          id: project.id,
          scope: 'account',
          account_id: accountId,
          workstream_id: null,
          prefix: project.key.slice(0, 8),
          created_at: '2026-01-01T00:00:00.000Z',
          last_used_at: null,
          revoked_at: null,
          expires_at: null,
          rotated_from_id: null,
        },
        expect.objectContaining({ id: workstream.id, scope: 'workstream', workstream_id: 'ws-1' }),
      ]);
      expect((await service.listApiKeys({ workstreamId: 'ws-9' })).map((key) => key.account_id)).toEqual(['acc-2']);
      expect(await service.listApiKeys({})).toHaveLength(3);
    });

    it('revokes a key once, keeping the first revocation time, and tells the gateways each time', async () => {
      const { id } = await service.createApiKey(accountId, null);
      await service.revokeApiKey(id);
      const first = repository.apiKeys.get(id)!.revokedAt;
      expect(first).toBeInstanceOf(Date);
      await service.revokeApiKey(id);
      expect(repository.apiKeys.get(id)!.revokedAt).toBe(first);
      expect(bumps).toBe(2);
      await expect(service.revokeApiKey('nope')).rejects.toEqual(domainError(ErrorCode.NotFound, 'API key nope not found'));
    });

    it('answers 503 when the gateways cannot be told, with the revocation stored', async () => {
      const { id } = await service.createApiKey(accountId, null);
      redisDown = true;
      await expect(service.revokeApiKey(id)).rejects.toEqual(
        domainError(
          ErrorCode.Unavailable,
          `The revocation of API key ${id} is stored, but the gateways could not be told (Redis unavailable): retry the call`,
        ),
      );
      expect(repository.apiKeys.get(id)!.revokedAt).not.toBeNull();
    });

    it('rotates a key into a new one of the same scope; the old one works for the overlap only', async () => {
      const old = await service.createApiKey(accountId, 'ws-1');
      const before = Date.now();
      const rotated = await service.rotateApiKey(old.id, 600);
      expect(rotated).toEqual({ id: expect.any(String), key: expect.stringMatching(/^wlk_/), replayed: false });
      expect(repository.apiKeys.get(rotated.id)).toMatchObject({
        accountId,
        workstreamId: 'ws-1',
        rotatedFromId: old.id,
        keyHash: sha256(rotated.key),
      });
      const expiresAt = repository.apiKeys.get(old.id)!.expiresAt!.getTime();
      expect(expiresAt).toBeGreaterThanOrEqual(before + 600_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 600_000);
      expect(bumps).toBe(1);
    });

    it('keeps an earlier expiry of the old key than the overlap would give', async () => {
      const old = await service.createApiKey(accountId, null);
      const soon = new Date(Date.now() + 10_000);
      repository.apiKeys.get(old.id)!.expiresAt = soon;
      await service.rotateApiKey(old.id, 600);
      expect(repository.apiKeys.get(old.id)!.expiresAt).toEqual(soon);
    });

    it('refuses to rotate a revoked, an expired or an unknown key', async () => {
      const revoked = await service.createApiKey(accountId, null);
      await service.revokeApiKey(revoked.id);
      const expired = await service.createApiKey(accountId, null);
      repository.apiKeys.get(expired.id)!.expiresAt = new Date(Date.now() - 1000);
      await expect(service.rotateApiKey(revoked.id, 60)).rejects.toEqual(
        domainError(ErrorCode.Conflict, `API key ${revoked.id} is revoked and cannot be rotated`),
      );
      await expect(service.rotateApiKey(expired.id, 60)).rejects.toEqual(
        domainError(ErrorCode.Conflict, `API key ${expired.id} is expired and cannot be rotated`),
      );
      await expect(service.rotateApiKey('nope', 60)).rejects.toEqual(domainError(ErrorCode.NotFound, 'API key nope not found'));
      expect(repository.apiKeys.size).toBe(2);
    });

    it('answers a retried rotation with the key it created, also after the old key expired, and tells the gateways again', async () => {
      const old = await service.createApiKey(accountId, null);
      const first = await service.rotateApiKey(old.id, 60, 'rot-1');
      repository.apiKeys.get(old.id)!.expiresAt = new Date(Date.now() - 1000);
      expect(await service.rotateApiKey(old.id, 60, 'rot-1')).toEqual({ ...first, replayed: true });
      expect(repository.apiKeys.size).toBe(2);
      expect(bumps).toBe(2);
      await expect(service.rotateApiKey(old.id, 120, 'rot-1')).rejects.toMatchObject({ code: ErrorCode.Validation });
    });
  });

  describe('workers', () => {
    it('creates a worker with its email in lower case and a token found again by its hash', async () => {
      const { id, token } = await service.createWorker('Ann@Example.com', 'Ann');
      expect(token).toMatch(/^wkr_[A-Za-z0-9_-]{32}$/);
      expect(repository.workers.get(id)).toMatchObject({ email: 'ann@example.com', name: 'Ann', tokenHash: sha256(token) });
      expect(await service.findWorker(sha256(token))).toEqual({ workerId: id, email: 'ann@example.com', name: 'Ann' });
      expect(await service.findWorker(sha256('unknown'))).toBeUndefined();
      expect(counts.lookedUp).toEqual(['worker', 'worker']);
    });

    it('refuses a second worker with the same email, in any case', async () => {
      await service.createWorker('ann@example.com', 'Ann');
      await expect(service.createWorker('ANN@example.com', 'Ann 2')).rejects.toEqual(
        domainError(ErrorCode.Conflict, 'a worker with email ANN@example.com already exists'),
      );
      expect(repository.workers.size).toBe(1);
    });
  });
});
