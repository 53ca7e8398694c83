import { checkSignedPath, signedUrlExpiry, signPath } from './signed-url';

describe('signed paths', () => {
  const key = 'k';
  const expiresAt = new Date('2030-01-01T00:00:00Z');
  const query = (signed: string) => Object.fromEntries(new URL(signed, 'http://x').searchParams) as { expires: string; signature: string };

  it('accepts its own signature until it expires', () => {
    const signed = signPath(key, 'PUT', '/uploads/media/abc', expiresAt);
    expect(checkSignedPath(key, 'PUT', '/uploads/media/abc', query(signed), new Date('2029-12-31T23:59:59Z'))).toEqual({ ok: true });
    expect(checkSignedPath(key, 'PUT', '/uploads/media/abc', query(signed), new Date('2030-01-01T00:00:01Z'))).toEqual({
      ok: false,
      reason: 'expired',
    });
  });

  it('refuses another path, method, key, expiry or a missing signature', () => {
    const q = query(signPath(key, 'PUT', '/a', expiresAt));
    const now = new Date('2029-01-01T00:00:00Z');
    expect(checkSignedPath(key, 'PUT', '/b', q, now)).toEqual({ ok: false, reason: 'tampered' });
    expect(checkSignedPath(key, 'GET', '/a', q, now)).toEqual({ ok: false, reason: 'tampered' });
    expect(checkSignedPath('other', 'PUT', '/a', q, now)).toEqual({ ok: false, reason: 'tampered' });
    expect(checkSignedPath(key, 'PUT', '/a', { ...q, expires: String(Number(q.expires) + 3600) }, now)).toEqual({
      ok: false,
      reason: 'tampered',
    });
    expect(checkSignedPath(key, 'PUT', '/a', { expires: q.expires }, now)).toEqual({ ok: false, reason: 'missing' });
  });
});

describe('signedUrlExpiry', () => {
  it("is on the whole second the URL's expires parameter names, at most a second short of the lifetime", () => {
    const now = Date.parse('2026-11-29T12:00:00.750Z');
    const expiresAt = signedUrlExpiry(3600, now);
    expect(expiresAt.toISOString()).toBe('2026-11-29T13:00:00.000Z');
    expect(signPath('k', 'PUT', '/x', expiresAt)).toContain(`expires=${expiresAt.getTime() / 1000}&`);
  });
});
