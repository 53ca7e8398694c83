import { ErrorCode } from '@workline/contracts';
import { InMemoryRoundTrip } from '@workline/testing';
import { FailedAuthLimiter, failureBucket } from './failed-auth-limiter';
import { InMemoryFailedAuthCounters } from './testing/in-memory-identity-redis';

describe('FailedAuthLimiter', () => {
  const policy = { limit: 3, windowSeconds: 60 };
  let redis: InMemoryRoundTrip;
  let counters: InMemoryFailedAuthCounters;
  let limiter: FailedAuthLimiter;

  beforeEach(() => {
    redis = new InMemoryRoundTrip();
    counters = new InMemoryFailedAuthCounters(redis);
    limiter = new FailedAuthLimiter(counters, policy);
  });

  it('counts failures per address, and a password per address and the account it names', () => {
    expect(failureBucket.account('10.0.0.1', 'acme')).toBe('auth-failures:account:10.0.0.1:acme');
    expect(failureBucket.unknownAccount('10.0.0.1')).toBe('auth-failures:basic:10.0.0.1');
    expect(failureBucket.apiKey('10.0.0.1')).toBe('auth-failures:api-key:10.0.0.1');
    expect(failureBucket.worker('10.0.0.1')).toBe('auth-failures:worker:10.0.0.1');
    expect(failureBucket.admin('10.0.0.1')).toBe('auth-failures:admin:10.0.0.1');
  });

  describe('reserving a slot before an expensive check', () => {
    it('takes `limit` slots per window, then refuses with the seconds left in the window', async () => {
      const bucket = failureBucket.account('10.0.0.1', 'acme');
      for (let slot = 0; slot < policy.limit; slot++) expect(await limiter.reserve(bucket)).toBeUndefined();
      counters.nowMs += 20_000;
      expect(await limiter.reserve(bucket)).toBe(40);
      expect(counters.state(bucket).count).toBe(policy.limit);
      // The window began with the first slot: once it ends, the bucket is empty again.
      counters.nowMs += 40_000;
      expect(await limiter.reserve(bucket)).toBeUndefined();
      expect(counters.state(bucket)).toEqual({ count: 1, ttl: 60 });
    });

    it('gets a slot back when the credential was right, never going below empty', async () => {
      const bucket = failureBucket.account('10.0.0.1', 'acme');
      for (let slot = 0; slot < policy.limit; slot++) await limiter.reserve(bucket);
      await limiter.release(bucket);
      expect(await limiter.reserve(bucket)).toBeUndefined();
      for (let release = 0; release < 5; release++) await limiter.release(bucket);
      expect(counters.state(bucket).count).toBe(0);
      expect(await limiter.reserve(failureBucket.account('10.0.0.1', 'other'))).toBeUndefined();
    });

    it('keeps the buckets apart: a full one refuses only its own address and account', async () => {
      const full = failureBucket.account('10.0.0.1', 'acme');
      for (let slot = 0; slot < policy.limit; slot++) await limiter.reserve(full);
      expect(await limiter.reserve(full)).toBeGreaterThan(0);
      expect(await limiter.reserve(failureBucket.account('10.0.0.2', 'acme'))).toBeUndefined();
      expect(await limiter.reserve(failureBucket.account('10.0.0.1', 'globex'))).toBeUndefined();
    });
  });

  describe('recording failures of a cheap check', () => {
    it('refuses from the failure past the limit on, with the seconds left in the window', async () => {
      const bucket = failureBucket.apiKey('10.0.0.1');
      for (let failure = 0; failure < policy.limit; failure++) expect(await limiter.recordFailure(bucket)).toBeUndefined();
      counters.nowMs += 59_000;
      expect(await limiter.recordFailure(bucket)).toBe(1);
      expect(counters.state(bucket).count).toBe(policy.limit + 1);
    });

    it('answers the whole window when Redis gives no time left (never "now")', async () => {
      const bucket = failureBucket.worker('10.0.0.1');
      for (let failure = 0; failure < policy.limit; failure++) await limiter.recordFailure(bucket);
      counters.nowMs += 59_900;
      // Redis rounds 0.1 s to a TTL of 0: the answer is still a wait, not "now".
      expect(await limiter.recordFailure(bucket)).toBe(policy.windowSeconds);
    });
  });

  describe('peeking (a right credential that must still respect a lockout)', () => {
    it('reads the lockout without counting, refusing once the bucket holds `limit`', async () => {
      const bucket = failureBucket.admin('10.0.0.1');
      const peek = async () => (await redis.send(limiter.peek(bucket)))[0];
      for (let failure = 0; failure < policy.limit - 1; failure++) await limiter.recordFailure(bucket);
      expect(await peek()).toBeUndefined();
      await limiter.recordFailure(bucket);
      expect(await peek()).toBe(60);
      expect(counters.state(bucket).count).toBe(policy.limit);
    });
  });

  it('fails open when Redis cannot answer: no lockout, nothing counted, no error', async () => {
    const bucket = failureBucket.account('10.0.0.1', 'acme');
    for (let slot = 0; slot < policy.limit; slot++) await limiter.reserve(bucket);
    redis.down = true;
    expect(await limiter.reserve(bucket)).toBeUndefined();
    expect(await limiter.recordFailure(bucket)).toBeUndefined();
    await expect(limiter.release(bucket)).resolves.toBeUndefined();
    redis.down = false;
    expect(counters.state(bucket).count).toBe(policy.limit);
  });

  it('refuses a locked-out caller with 429 and the seconds to wait', () => {
    expect(limiter.lockedOut(42)).toEqual(
      expect.objectContaining({
        code: ErrorCode.TooManyRequests,
        message: 'Too many failed authentications from this address; retry in 42 s',
        retryAfterSeconds: 42,
      }),
    );
  });
});
