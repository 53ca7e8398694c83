import { type Principal, principalSubject } from '@workline/identity';
import { addressSubject, windowState } from './rate-limit';

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
});
