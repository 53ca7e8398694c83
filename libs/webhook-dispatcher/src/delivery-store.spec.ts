import 'reflect-metadata';
import { parseCallbackUrl } from '@workline/callback-url';
import { originOf } from './delivery-store';

describe('originOf (the per-origin key, also computed in SQL by the claim)', () => {
  it.each([
    'http://127.0.0.1:3000/hook',
    'https://Hooks.Example.COM/a/b?x=1#frag',
    'http://example.com:80/',
    'https://example.com:8443?only=query',
    'http://[::1]:9/hook',
    'http://user:pw@example.com:81/x',
    'http://sub_domain.example.com/p',
  ])('equals the URL origin for the stored form of %s', (raw) => {
    const stored = parseCallbackUrl(raw).url;
    expect(originOf(stored)).toBe(new URL(stored).origin);
  });
});
