import { hashPassword, newSecret, safeEqual, SecretBox, verifyPassword } from './secrets';

describe('secrets', () => {
  it('hashes passwords with a salt and verifies them', async () => {
    const a = await hashPassword('correct horse');
    const b = await hashPassword('correct horse');
    expect(a).not.toBe(b);
    expect(a).not.toContain('correct horse');
    await expect(verifyPassword('correct horse', a)).resolves.toBe(true);
    await expect(verifyPassword('wrong', a)).resolves.toBe(false);
    await expect(verifyPassword('x', 'garbage')).resolves.toBe(false);
  });

  it('seals and opens secrets; tampering or another key fails', () => {
    const box = new SecretBox('k1');
    const sealed = box.seal('wlk_secret');
    expect(sealed).not.toContain('wlk_secret');
    expect(box.open(sealed)).toBe('wlk_secret');
    expect(() => new SecretBox('k2').open(sealed)).toThrow();
    const parts = sealed.split('.');
    parts[3] = Buffer.from('tampered').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
  });

  it('makes prefixed random secrets and compares in constant time', () => {
    const s = newSecret('wlk');
    expect(s).toMatch(/^wlk_[A-Za-z0-9_-]{32}$/);
    expect(newSecret('wlk')).not.toBe(s);
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
