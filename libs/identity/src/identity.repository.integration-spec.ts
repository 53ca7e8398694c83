import { DbPool, PrismaService, statement } from '@workline/db';
import { sha256 } from '@workline/secrets';
import { callsOnly, testStack } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { IdentityRepository } from './identity.repository';

// It reads and writes the identity tables of PostgreSQL only (libs/testing/src/stack-turns.ts).
callsOnly([]);

const PREPARED = statement('identity_probe_prepared_statements', 'select name from pg_prepared_statements order by name');

/**
 * The lookups authentication makes on a cache miss, against the real PostgreSQL: the rows they answer, and
 * that they run as prepared statements on the app's pool, the lookups of a batch in one statement. One
 * connection, so the prepared statements read back are those of the connection the lookups ran on.
 */
describe('IdentityRepository lookups (real PostgreSQL)', () => {
  const db = new DbPool(testStack().databaseUrl, { size: 1 });
  const prisma = new PrismaService(db);
  const repository = new IdentityRepository(prisma, db);
  const unique = randomUUID().slice(0, 8);
  const account = { id: randomUUID(), name: 'Lookup Inc', username: `lookup-${unique}`, passwordHash: 'scrypt$probe' };
  const keys = ['live', 'revoked', 'rotated'].map((name) => ({
    secret: `wlk_${name}_${unique}`,
    row: {
      id: randomUUID(),
      accountId: account.id,
      workstreamId: name === 'live' ? null : `ws-${unique}`,
      keyHash: sha256(`wlk_${name}_${unique}`),
      keyCiphertext: `sealed-${name}`,
      prefix: `wlk_${name}`.slice(0, 8),
    },
  }));
  const [live, revoked, rotated] = keys;
  const worker = { id: randomUUID(), email: `lookup.${unique}@example.com`, name: 'Lookup Worker', tokenHash: sha256(`wkr_${unique}`) };
  const revokedAt = new Date('2031-02-03T04:05:06.789Z');
  const expiresAt = new Date('2031-03-04T05:06:07.890Z');

  beforeAll(async () => {
    await repository.createAccount(account);
    for (const key of keys) await repository.createApiKey(key.row);
    await repository.revokeApiKey(revoked.row.id, revokedAt);
    await prisma.apiKey.update({ where: { id: rotated.row.id }, data: { expiresAt } });
    expect(await repository.createWorker(worker)).toBe(true);
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await db.end();
  });

  it(
    'answers an API key by its hash with what authentication needs, revocation and expiry included; ' + 'an unknown hash with nothing',
    async () => {
      expect(await repository.apiKeyByHash(live.row.keyHash)).toEqual({
        id: live.row.id,
        accountId: account.id,
        workstreamId: null,
        keyCiphertext: 'sealed-live',
        revokedAt: null,
        expiresAt: null,
        lastUsedAt: null,
      });
      expect(await repository.apiKeyByHash(revoked.row.keyHash)).toMatchObject({
        id: revoked.row.id,
        workstreamId: `ws-${unique}`,
        revokedAt,
      });
      expect(await repository.apiKeyByHash(rotated.row.keyHash)).toMatchObject({ id: rotated.row.id, revokedAt: null, expiresAt });
      expect(await repository.apiKeyByHash(sha256(`wlk_unknown_${unique}`))).toBeUndefined();
    },
  );

  it('answers a worker by its token hash and an account by its username; unknown ones with nothing', async () => {
    expect(await repository.workerByTokenHash(worker.tokenHash)).toEqual({ workerId: worker.id, email: worker.email, name: worker.name });
    expect(await repository.workerByTokenHash(sha256(`wkr_unknown_${unique}`))).toBeUndefined();
    expect(await repository.accountByUsername(account.username)).toEqual({
      id: account.id,
      username: account.username,
      passwordHash: account.passwordHash,
    });
    // The username is matched exactly, as the unique index holds it.
    expect(await repository.accountByUsername(account.username.toUpperCase())).toBeUndefined();
  });

  it('reads the lookups that arrive together in one prepared statement per kind, each answered with its own row', async () => {
    const before = db.statementsSent;
    const [first, unknown, second, third, repeated, found, missing, login] = await Promise.all([
      repository.apiKeyByHash(live.row.keyHash),
      repository.apiKeyByHash(sha256(`wlk_nobody_${unique}`)),
      repository.apiKeyByHash(revoked.row.keyHash),
      repository.apiKeyByHash(rotated.row.keyHash),
      repository.apiKeyByHash(live.row.keyHash),
      repository.workerByTokenHash(worker.tokenHash),
      repository.workerByTokenHash(sha256(`wkr_nobody_${unique}`)),
      repository.accountByUsername(account.username),
    ]);
    const keyIds = [live, revoked, rotated].map((key) => key.row.id);
    expect([first?.id, unknown, second?.id, third?.id, repeated?.id]).toEqual([keyIds[0], undefined, keyIds[1], keyIds[2], keyIds[0]]);
    expect([found?.workerId, missing, login?.id]).toEqual([worker.id, undefined, account.id]);
    // One statement for the five key lookups, one for the two workers, one for the account.
    expect(db.statementsSent - before).toBe(3);
    const prepared = (await db.query<{ name: string }>(PREPARED)).map((row) => row.name);
    expect(prepared).toEqual(
      expect.arrayContaining(['identity_accounts_by_username', 'identity_api_keys_by_hash', 'identity_workers_by_token_hash']),
    );
  });

  it("writes a key's last use only when no instance wrote one since the threshold", async () => {
    const firstUse = new Date('2030-01-01T00:00:00.000Z');
    await repository.touchApiKey(live.row.id, firstUse, new Date(firstUse.getTime() - 60_000));
    expect((await repository.apiKeyByHash(live.row.keyHash))?.lastUsedAt).toEqual(firstUse);
    // Another instance's write within the minute stands: this touch's threshold is before it.
    await repository.touchApiKey(live.row.id, new Date(firstUse.getTime() + 30_000), new Date(firstUse.getTime() - 30_000));
    expect((await repository.apiKeyByHash(live.row.keyHash))?.lastUsedAt).toEqual(firstUse);
    const later = new Date(firstUse.getTime() + 120_000);
    await repository.touchApiKey(live.row.id, later, new Date(later.getTime() - 60_000));
    expect((await repository.apiKeyByHash(live.row.keyHash))?.lastUsedAt).toEqual(later);
    const prepared = (await db.query<{ name: string }>(PREPARED)).map((row) => row.name);
    expect(prepared).toContain('identity_api_key_touch');
  });
});
