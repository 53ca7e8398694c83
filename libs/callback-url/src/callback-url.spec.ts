import { blockedAddressReason, CallbackUrlError, checkCallbackUrl, parseCallbackUrl } from './callback-url';

describe('callback URL policy', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.9.9.9', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a shared (CGNAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fe80::1', 'a link-local address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['64:ff9b::10.0.0.1', 'a private address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('accepts the public address %s', (ip) => {
    expect(blockedAddressReason(ip)).toBeUndefined();
  });

  it('splits userinfo off into a Basic authorization value', () => {
    expect(parseCallbackUrl('https://us%40er:p%3Ass@example.com:8443/cb?x=1')).toEqual({
      url: 'https://example.com:8443/cb?x=1',
      authorization: `Basic ${Buffer.from('us@er:p:ss').toString('base64')}`,
      host: 'example.com',
    });
    expect(parseCallbackUrl('http://[::1]:9/x').host).toBe('::1');
  });

  it('refuses other schemes and malformed URLs', () => {
    expect(() => parseCallbackUrl('ftp://example.com/')).toThrow('callback_url must use http or https');
    expect(() => parseCallbackUrl('not a url')).toThrow(CallbackUrlError);
  });

  it('refuses literal private hosts and names that resolve to loopback; allowPrivate lifts it', async () => {
    await expect(checkCallbackUrl('http://127.0.0.1:8080/cb')).rejects.toThrow('callback_url must point to a public address: 127.0.0.1 is a loopback address');
    await expect(checkCallbackUrl('http://[::1]/cb')).rejects.toThrow('::1 is a loopback address');
    await expect(checkCallbackUrl('http://localhost/cb')).rejects.toThrow(/localhost resolves to (127\.0\.0\.1|::1), which is a loopback address/);
    await expect(checkCallbackUrl('http://localhost/cb', { allowPrivate: true })).resolves.toMatchObject({ host: 'localhost' });
  });
});
