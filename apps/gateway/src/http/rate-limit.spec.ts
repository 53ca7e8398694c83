import { type Principal, principalSubject } from '@workline/identity';
import type { RedisService } from '@workline/redis';
import { addressSubject, RateLimiter, windowState } from './rate-limit';

describe('rate limit subject and window arithmetic', () => {
  it('counts the verified principal, never the secret or its spelling, and requests without one by address', () => {
    const key: Principal = { kind: 'api-key', keyId: 'k1', accountId: 'a1', workstreamId: null, sealedKey: 'v1.sealed' };
    expect(principalSubject(key)).toBe('api-key:k1');
    expect(principalSubject({ kind: 'account', accountId: 'a1' })).toBe('account:a1');
    expect(principalSubject({ kind: 'worker', workerId: 'w1', email: 'w@example.com', name: 'W' })).toBe('worker:w1');
    expect(principalSubject({ kind: 'admin' })).toBe('admin');
    expect(addressSubject('10.0.0.1')).toBe('address:10.0.0.1');
  });

  it('reports the remaining budget and the seconds until the oldest request leaves the window', () => {
    expect(windowState(true, 5, 2, 1_000, 1_000)).toEqual({ allowed: true, limit: 5, remaining: 3, resetSeconds: 60 });
    expect(windowState(false, 5, 5, 1_000, 59_500)).toEqual({ allowed: false, limit: 5, remaining: 0, resetSeconds: 2 });
    // Never 0: a client told to retry in 0 s would hammer the gateway.
    expect(windowState(false, 5, 5, 1_000, 61_000).resetSeconds).toBe(1);
  });

  it("reads the script's reply, and refuses to read any other reply as a refusal (it would 429 a client for our fault)", () => {
    // Only the reply parsing is under test here; the script itself runs against real Redis in the integration suites.
    jest.spyOn(Date, 'now').mockReturnValue(1_000_000);
    const redis = { defineCommand: () => undefined, rateLimitTake: () => undefined } as unknown as RedisService;
    const command = new RateLimiter(redis, { v4: 10 }).command('v4', 'api-key:k1')!;
    expect(command.read([1, 3, '970000'])).toMatchObject({ allowed: true, limit: 10, remaining: 7, resetSeconds: 30 });
    expect(command.read([0, 10, '941000'])).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 1 });
    expect(() => command.read('6f1c2a4e-0b7d-4c1e-9a55-3f1d2e4b5a6c')).toThrow(/rate limit script gave/);
    expect(() => command.read(null)).toThrow(/rate limit script gave/);
    jest.restoreAllMocks();
  });
});
