import { blockedAddressReason, CallbackUrlError, checkCallbackUrl, parseAddressRange, parseCallbackUrl } from './callback-url';

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
    ['64:ff9b::a9fe:a9fe', 'a cloud metadata address'],
    ['::ffff:0:10.0.0.1', 'a private address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['2002:a9fe:a9fe::1', 'a cloud metadata address'],
    ['2002:c0a8:101:5::1', 'a private address'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'a Teredo tunnel address'],
    ['64:ff9b:1::a00:1', 'a local-use NAT64 address'],
  ])('refuses %s (%s)', (ip, reason) => {
    expect(blockedAddressReason(ip)).toBe(reason);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8', '2002:808:808::1', '64:ff9b::8.8.8.8'])(
    'accepts the public address %s',
    (ip) => {
      expect(blockedAddressReason(ip)).toBeUndefined();
    },
  );

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
    await expect(checkCallbackUrl('http://127.0.0.1:8080/cb')).rejects.toThrow(
      'callback_url must point to a public address: 127.0.0.1 is a loopback address',
    );
    await expect(checkCallbackUrl('http://[::1]/cb')).rejects.toThrow('::1 is a loopback address');
    await expect(checkCallbackUrl('http://localhost/cb', { allowPrivate: true })).resolves.toMatchObject({ host: 'localhost' });
  });

  it('says a name resolves to "a private address", never which one', async () => {
    const refusal = checkCallbackUrl('http://localhost/cb');
    await expect(refusal).rejects.toThrow('callback_url must point to a public address: localhost resolves to a private address');
    await expect(refusal).rejects.not.toThrow(/127\.0\.0\.1|::1|loopback/);
  });

  it('lets listed ranges through and nothing else; metadata addresses never', async () => {
    const allowed = ['127.0.0.1', '10.20.0.0/16', 'fd00::/8'].map((text) => parseAddressRange(text)!);
    expect(blockedAddressReason('127.0.0.1', allowed)).toBeUndefined();
    expect(blockedAddressReason('::ffff:127.0.0.1', allowed)).toBeUndefined();
    // 6to4 and NAT64 reach 127.0.0.1 through a relay or translator: only an IPv6 range names them.
    expect(blockedAddressReason('2002:7f00:1::', allowed)).toBe('a loopback address');
    expect(blockedAddressReason('64:ff9b::7f00:1', allowed)).toBe('a loopback address');
    expect(blockedAddressReason('64:ff9b::7f00:1', [parseAddressRange('64:ff9b::/96')!])).toBeUndefined();
    expect(blockedAddressReason('127.0.0.2', allowed)).toBe('a loopback address');
    expect(blockedAddressReason('::1', allowed)).toBe('a loopback address');
    expect(blockedAddressReason('10.20.255.1', allowed)).toBeUndefined();
    expect(blockedAddressReason('10.21.0.1', allowed)).toBe('a private address');
    expect(blockedAddressReason('fd12::1', allowed)).toBeUndefined();
    expect(blockedAddressReason('169.254.169.254', [parseAddressRange('169.254.0.0/16')!])).toBe('a cloud metadata address');
    await expect(checkCallbackUrl('http://127.0.0.1:9/cb', { allowedRanges: ['127.0.0.1'] })).resolves.toMatchObject({ host: '127.0.0.1' });
    await expect(checkCallbackUrl('http://127.0.0.2:9/cb', { allowedRanges: ['127.0.0.1'] })).rejects.toThrow(
      '127.0.0.2 is a loopback address',
    );
  });

  it('parses address ranges', () => {
    expect(parseAddressRange('10.20.0.0/16')).toEqual({ family: 4, start: 0x0a140000n, end: 0x0a14ffffn });
    expect(parseAddressRange('10.20.1.2/16')).toEqual({ family: 4, start: 0x0a140000n, end: 0x0a14ffffn });
    expect(parseAddressRange('::1')).toEqual({ family: 6, start: 1n, end: 1n });
    for (const bad of ['10.0.0.0/33', '10.0.0/8', 'fd00::/129', 'example.com', '10.0.0.0/8/1', '10.0.0.0/x', ''])
      expect(parseAddressRange(bad)).toBeUndefined();
  });
});
