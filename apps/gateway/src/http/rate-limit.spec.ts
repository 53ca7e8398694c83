import { rateLimitSubject, windowState } from './rate-limit';

describe('rate limit subject and window arithmetic', () => {
  it('counts the API key, else the Authorization value, else the client address, never the secret itself', () => {
    const byKey = rateLimitSubject({ headers: { 'x-api-key': 'wlk_secret', authorization: 'Basic abc' }, ip: '10.0.0.1' });
    expect(byKey).toMatch(/^c:[0-9a-f]{64}$/);
    expect(byKey).not.toContain('wlk_secret');
    expect(rateLimitSubject({ headers: { authorization: 'Basic abc' }, ip: '10.0.0.1' })).not.toBe(byKey);
    expect(rateLimitSubject({ headers: { 'x-api-key': 'wlk_secret' }, ip: '10.0.0.2' })).toBe(byKey);
    expect(rateLimitSubject({ headers: {}, ip: '10.0.0.1' })).toBe('a:10.0.0.1');
  });

  it('reports the remaining budget and the seconds until the oldest request leaves the window', () => {
    expect(windowState(true, 5, 2, 1_000, 1_000)).toEqual({ allowed: true, limit: 5, remaining: 3, resetSeconds: 60 });
    expect(windowState(false, 5, 5, 1_000, 59_500)).toEqual({ allowed: false, limit: 5, remaining: 0, resetSeconds: 2 });
    // Never 0: a client told to retry in 0 s would hammer the gateway.
    expect(windowState(false, 5, 5, 1_000, 61_000).resetSeconds).toBe(1);
  });
});
