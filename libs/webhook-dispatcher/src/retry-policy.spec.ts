import { afterFailure, isSuccessStatus, MAX_RETRY_AFTER_MS, parseRetryAfterMs, scheduledWaitMs } from './retry-policy';

describe('retry policy', () => {
  it('treats 2xx as a receipt and anything else (redirects included) as a failure', () => {
    for (const status of [200, 201, 202, 204, 299]) expect(isSuccessStatus(status)).toBe(true);
    for (const status of [null, undefined, 100, 199, 300, 301, 302, 304, 307, 308, 400, 404, 429, 500, 503])
      expect(isSuccessStatus(status)).toBe(false);
  });

  it('waits 1 h, 2 h, 4 h, then 8 h (the documented fourth wait) at the default base', () => {
    const hour = 3_600_000;
    expect([1, 2, 3, 4].map((retry) => scheduledWaitMs(retry, hour))).toEqual([hour, 2 * hour, 4 * hour, 8 * hour]);
  });

  it('retries after each of the first four failures and gives up after the fifth attempt', () => {
    const decisions = [1, 2, 3, 4, 5].map((failures) => afterFailure({ failures, baseMs: 1000, statusCode: 500, random: 0 }));
    expect(decisions).toEqual([
      { kind: 'retry', retry: 1, waitMs: 1000 },
      { kind: 'retry', retry: 2, waitMs: 2000 },
      { kind: 'retry', retry: 3, waitMs: 4000 },
      { kind: 'retry', retry: 4, waitMs: 8000 },
      { kind: 'dead' },
    ]);
    expect(afterFailure({ failures: 6, baseMs: 1000, statusCode: 500, random: 0 })).toEqual({ kind: 'dead' });
  });

  it('adds up to 10 % of jitter, never taking any away (no wait is shorter than the spec says)', () => {
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: null, random: 0 })).toMatchObject({ waitMs: 1000 });
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: null, random: 0.999999 })).toMatchObject({ waitMs: 1100 });
    expect(afterFailure({ failures: 2, baseMs: 1000, statusCode: null, random: 0.25 })).toMatchObject({ waitMs: 2050 });
  });

  it('honours a longer Retry-After on 429 and 503 only, and never shortens its own wait', () => {
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: 429, retryAfterMs: 30_000, random: 0 })).toMatchObject({
      waitMs: 30_000,
    });
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: 503, retryAfterMs: 30_000, random: 0 })).toMatchObject({
      waitMs: 30_000,
    });
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: 503, retryAfterMs: 10, random: 0 })).toMatchObject({ waitMs: 1000 });
    expect(afterFailure({ failures: 1, baseMs: 1000, statusCode: 500, retryAfterMs: 30_000, random: 0 })).toMatchObject({ waitMs: 1000 });
    expect(afterFailure({ failures: 5, baseMs: 1000, statusCode: 503, retryAfterMs: 30_000, random: 0 })).toEqual({ kind: 'dead' });
  });

  it('reads Retry-After as seconds or an HTTP date, capped at a day, and ignores garbage', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfterMs('120', now)).toBe(120_000);
    expect(parseRetryAfterMs(' 0 ', now)).toBe(0);
    expect(parseRetryAfterMs('Thu, 01 Jan 2026 00:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfterMs('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfterMs('99999999', now)).toBe(MAX_RETRY_AFTER_MS);
    for (const bad of [undefined, null, '', 'soon', '-5', '1.5']) expect(parseRetryAfterMs(bad, now)).toBeUndefined();
  });
});
