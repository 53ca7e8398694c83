import 'reflect-metadata';
import { SecretBox } from '@workline/secrets';
import { inMemoryCommand, InMemoryRoundTrip } from '@workline/testing';
import { Authenticator, type Credential, type Principal, principalSubject, type Verdict } from './authenticator';
import { FailedAuthLimiter, failureBucket } from './failed-auth-limiter';
import { IdentityService } from './identity.service';
import { InMemoryIdentity } from './testing/in-memory-identity.repository';
import { InMemoryFailedAuthCounters, InMemoryIdentityEpoch } from './testing/in-memory-identity-redis';

const ADDRESS = '203.0.113.7';
const ADMIN_TOKEN = 'an-operator-chosen-admin-token';
const policy = { limit: 3, windowSeconds: 60 };
const verified = (principal: Principal): Verdict => ({ outcome: 'verified', principal });
const INVALID: Verdict = { outcome: 'invalid' };

describe('Authenticator', () => {
  let repository: InMemoryIdentity;
  let redis: InMemoryRoundTrip;
  let counters: InMemoryFailedAuthCounters;
  let epoch: InMemoryIdentityEpoch;
  let identity: IdentityService;
  let authenticator: Authenticator;
  /** What reached PostgreSQL (identity lookups) and scrypt (password checks). */
  let lookedUp: string[];
  let passwordChecks: number;

  beforeEach(() => {
    repository = new InMemoryIdentity();
    redis = new InMemoryRoundTrip();
    counters = new InMemoryFailedAuthCounters(redis);
    epoch = new InMemoryIdentityEpoch(redis);
    lookedUp = [];
    passwordChecks = 0;
    const observer = { passwordChecked: () => passwordChecks++, lookedUp: (kind: string) => lookedUp.push(kind) };
    identity = new IdentityService(repository, new SecretBox('a-secrets-key-of-at-least-thirty-two-characters'), epoch, observer);
    authenticator = new Authenticator(identity, new FailedAuthLimiter(counters, policy), epoch, redis, ADMIN_TOKEN);
  });

  afterEach(() => jest.restoreAllMocks());

  const verdictOf = async (credential: Credential, address = ADDRESS) => (await authenticator.authenticate(address, credential)).verdict;
  /** Moves the authenticator's clock (Date.now) forward; PostgreSQL rows keep the times they were written with. */
  const later = (seconds: number) => {
    const now = Date.now() + seconds * 1000;
    jest.spyOn(Date, 'now').mockReturnValue(now);
  };

  describe('API keys', () => {
    const apiKey = (key: string): Credential => ({ kind: 'api-key', key });
    const principalOf = (id: string, workstreamId: string | null): Principal => ({
      kind: 'api-key',
      keyId: id,
      accountId: 'acc-1',
      workstreamId,
      sealedKey: repository.apiKeys.get(id)!.keyCiphertext,
    });

    it('verifies a key in PostgreSQL once, then from the cache while the epoch holds, each time in one round trip', async () => {
      const { id, key } = await identity.createApiKey('acc-1', 'ws-1');
      expect(await verdictOf(apiKey(key))).toEqual(verified(principalOf(id, 'ws-1')));
      expect(await verdictOf(apiKey(key))).toEqual(verified(principalOf(id, 'ws-1')));
      expect(await verdictOf(apiKey(key))).toEqual(verified(principalOf(id, 'ws-1')));
      expect(lookedUp).toEqual(['api-key']);
      expect(redis.sent).toBe(3);
    });

    it('refuses a revoked key at once, the cached one too: the revocation changes the epoch', async () => {
      const { id, key } = await identity.createApiKey('acc-1', null);
      const other = await identity.createApiKey('acc-1', null);
      await verdictOf(apiKey(key));
      await verdictOf(apiKey(other.key));
      await identity.revokeApiKey(id);
      expect(await verdictOf(apiKey(key))).toEqual(INVALID);
      // Every cached entry went back to PostgreSQL once: the other key is still good, and cached again.
      expect(await verdictOf(apiKey(other.key))).toEqual(verified(principalOf(other.id, null)));
      expect(await verdictOf(apiKey(other.key))).toEqual(verified(principalOf(other.id, null)));
      expect(lookedUp).toEqual(['api-key', 'api-key', 'api-key', 'api-key']);
      expect(counters.state(failureBucket.apiKey(ADDRESS)).count).toBe(1);
    });

    it('after a rotation, takes the old key until its overlap ends and the new key from then on', async () => {
      const old = await identity.createApiKey('acc-1', 'ws-1');
      await verdictOf(apiKey(old.key));
      const fresh = await identity.rotateApiKey(old.id, 60);
      expect(await verdictOf(apiKey(old.key))).toEqual(verified(principalOf(old.id, 'ws-1')));
      expect(await verdictOf(apiKey(fresh.key))).toEqual(verified(principalOf(fresh.id, 'ws-1')));
      later(30);
      expect(await verdictOf(apiKey(old.key))).toEqual(verified(principalOf(old.id, 'ws-1')));
      later(31);
      // The cached entry knows its expiry: no epoch change is needed for the overlap to end.
      expect(await verdictOf(apiKey(old.key))).toEqual(INVALID);
      expect(await verdictOf(apiKey(fresh.key))).toEqual(verified(principalOf(fresh.id, 'ws-1')));
    });

    it('counts wrong keys against the address and answers them locked past the limit; a right key is still accepted', async () => {
      const { id, key } = await identity.createApiKey('acc-1', null);
      for (let failure = 0; failure < policy.limit; failure++) expect(await verdictOf(apiKey(`wlk_wrong${failure}`))).toEqual(INVALID);
      expect(await verdictOf(apiKey('wlk_wrong'))).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(await verdictOf(apiKey('wlk_wrong'), '198.51.100.1')).toEqual(INVALID);
      // A 192-bit key cannot be guessed: the right one is never refused for its address's failures.
      expect(await verdictOf(apiKey(key))).toEqual(verified(principalOf(id, null)));
    });

    it('writes last_used_at at most once a minute per key, from cache hits too', async () => {
      const { id, key } = await identity.createApiKey('acc-1', null);
      for (let call = 0; call < 3; call++) await verdictOf(apiKey(key));
      later(61);
      for (let call = 0; call < 3; call++) await verdictOf(apiKey(key));
      expect(repository.touches.map((touch) => touch.id)).toEqual([id, id]);
    });
  });

  describe('the caller’s own command (the rate-limit take)', () => {
    const take = (principal: Principal) => inMemoryCommand(() => `taken for ${principalSubject(principal)}`);

    it('travels in authentication’s round trip on a cache hit and answers with it; a miss leaves it to the caller', async () => {
      const { id, key } = await identity.createApiKey('acc-1', null);
      const miss = await authenticator.authenticate(ADDRESS, { kind: 'api-key', key }, take);
      expect(miss).toEqual({ verdict: expect.objectContaining({ outcome: 'verified' }), alongside: undefined });
      const hit = await authenticator.authenticate(ADDRESS, { kind: 'api-key', key }, take);
      expect(hit.alongside).toBe(`taken for api-key:${id}`);
      expect(redis.sent).toBe(2);
    });

    it('counts for an entry the epoch made stale when PostgreSQL proves the same principal', async () => {
      const { id, key } = await identity.createApiKey('acc-1', null);
      await verdictOf({ kind: 'api-key', key });
      await identity.revokeApiKey((await identity.createApiKey('acc-1', null)).id);
      const checked = await authenticator.authenticate(ADDRESS, { kind: 'api-key', key }, take);
      expect(checked.alongside).toBe(`taken for api-key:${id}`);
      expect(lookedUp).toEqual(['api-key', 'api-key']);
    });

    it('goes with the admin token’s lockout check', async () => {
      expect(await authenticator.authenticate(ADDRESS, { kind: 'admin', token: ADMIN_TOKEN }, take)).toEqual({
        verdict: verified({ kind: 'admin' }),
        alongside: 'taken for admin',
      });
    });
  });

  describe('without Redis', () => {
    it('verifies every request in PostgreSQL and caches nothing, counting no failure (limits fail open)', async () => {
      const { key } = await identity.createApiKey('acc-1', null);
      redis.down = true;
      for (let call = 0; call < 2; call++) expect((await verdictOf({ kind: 'api-key', key }))?.outcome).toBe('verified');
      for (let failure = 0; failure <= policy.limit; failure++)
        expect(await verdictOf({ kind: 'api-key', key: 'wlk_wrong' })).toEqual(INVALID);
      expect(await verdictOf({ kind: 'admin', token: ADMIN_TOKEN })).toEqual(verified({ kind: 'admin' }));
      redis.down = false;
      // Nothing was cached meanwhile: the first call back goes to PostgreSQL, then the cache serves.
      await verdictOf({ kind: 'api-key', key });
      await verdictOf({ kind: 'api-key', key });
      // Two right keys and limit + 1 wrong ones while down, one miss once back.
      expect(lookedUp).toHaveLength(2 + policy.limit + 1 + 1);
      expect(counters.state(failureBucket.apiKey(ADDRESS)).count).toBe(0);
    });

    it('trusts no entry cached before Redis lost the epoch (a restart or flush)', async () => {
      const { key } = await identity.createApiKey('acc-1', null);
      await verdictOf({ kind: 'api-key', key });
      epoch.flush();
      await verdictOf({ kind: 'api-key', key });
      await verdictOf({ kind: 'api-key', key });
      expect(lookedUp).toEqual(['api-key', 'api-key']);
    });
  });

  describe('worker tokens', () => {
    it('verifies a token in PostgreSQL once, then from the cache; counts unknown tokens against the address', async () => {
      const { id, token } = await identity.createWorker('Ada@Example.com', 'Ada');
      const worker = verified({ kind: 'worker', workerId: id, email: 'ada@example.com', name: 'Ada' });
      expect(await verdictOf({ kind: 'worker', token })).toEqual(worker);
      expect(await verdictOf({ kind: 'worker', token })).toEqual(worker);
      expect(lookedUp).toEqual(['worker']);
      for (let failure = 0; failure < policy.limit; failure++)
        expect(await verdictOf({ kind: 'worker', token: 'wkr_wrong' })).toEqual(INVALID);
      expect(await verdictOf({ kind: 'worker', token: 'wkr_wrong' })).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(await verdictOf({ kind: 'worker', token })).toEqual(worker);
    });
  });

  describe('the admin token', () => {
    it('is checked without PostgreSQL; wrong ones are counted, and past the limit even the right one is refused', async () => {
      expect(await verdictOf({ kind: 'admin', token: ADMIN_TOKEN })).toEqual(verified({ kind: 'admin' }));
      for (let failure = 0; failure < policy.limit; failure++) expect(await verdictOf({ kind: 'admin', token: 'guess' })).toEqual(INVALID);
      expect(await verdictOf({ kind: 'admin', token: ADMIN_TOKEN })).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(await verdictOf({ kind: 'admin', token: ADMIN_TOKEN }, '198.51.100.1')).toEqual(verified({ kind: 'admin' }));
      expect(lookedUp).toEqual([]);
    });
  });

  describe('passwords (HTTP Basic)', () => {
    const login = (username: string, password: string): Credential => ({ kind: 'account', username, password });

    it('checks a right password once (scrypt), then answers the same pair from the cache, giving its slot back', async () => {
      const account = await identity.createAccount('Acme');
      const right = login(account.username, account.password);
      expect(await verdictOf(right)).toEqual(verified({ kind: 'account', accountId: account.id }));
      expect(await verdictOf(right)).toEqual(verified({ kind: 'account', accountId: account.id }));
      expect({ passwordChecks, lookedUp }).toEqual({ passwordChecks: 1, lookedUp: ['account'] });
      expect(counters.state(failureBucket.account(ADDRESS, account.username)).count).toBe(0);
    });

    it('refuses a full bucket even the right password, cached or not, without running scrypt', async () => {
      const account = await identity.createAccount('Acme');
      const right = login(account.username, account.password);
      await verdictOf(right);
      for (let failure = 0; failure < policy.limit; failure++) expect(await verdictOf(login(account.username, 'guess'))).toEqual(INVALID);
      const checksBefore = passwordChecks;
      expect(await verdictOf(right)).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(await verdictOf(login(account.username, 'guess'))).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(passwordChecks).toBe(checksBefore);
      // The lock is this address's for this account: from elsewhere, the right password works.
      expect(await verdictOf(right, '198.51.100.1')).toEqual(verified({ kind: 'account', accountId: account.id }));
    });

    it('counts unknown usernames in the address’s own bucket, with the same scrypt spent', async () => {
      for (let failure = 0; failure < policy.limit; failure++) expect(await verdictOf(login(`nobody${failure}`, 'guess'))).toEqual(INVALID);
      expect(await verdictOf(login('nobody-else', 'guess'))).toEqual({ outcome: 'locked', retryAfter: 60 });
      expect(counters.state(failureBucket.unknownAccount(ADDRESS)).count).toBe(policy.limit);
      expect(passwordChecks).toBe(policy.limit);
    });

    it('refuses the old password at once after a reset, the cached pair too', async () => {
      const account = await identity.createAccount('Acme');
      await verdictOf(login(account.username, account.password));
      const reset = await identity.resetPassword(account.id);
      expect(await verdictOf(login(account.username, account.password))).toEqual(INVALID);
      expect(await verdictOf(login(account.username, reset.password))).toEqual(verified({ kind: 'account', accountId: account.id }));
    });

    it('runs one scrypt for concurrent requests with the same pair from one address', async () => {
      const account = await identity.createAccount('Acme');
      const right = login(account.username, account.password);
      const verdicts = await Promise.all(Array.from({ length: 5 }, () => verdictOf(right)));
      expect(verdicts).toEqual(Array.from({ length: 5 }, () => verified({ kind: 'account', accountId: account.id })));
      expect(passwordChecks).toBe(1);
    });
  });
});
