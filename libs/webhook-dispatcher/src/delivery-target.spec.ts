import { CallbackUrlError } from '@workline/callback-url';
import { resolveDeliveryTarget } from './http-attempt';

describe('SSRF check at delivery time (resolveDeliveryTarget)', () => {
  it.each([
    ['http://127.0.0.1:8080/hook', 'a loopback address'],
    ['http://10.1.2.3/hook', 'a private address'],
    ['http://169.254.169.254/latest/meta-data', 'a cloud metadata address'],
    ['http://[::1]:8080/hook', 'a loopback address'],
    ['http://localhost:8080/hook', 'localhost resolves to a private address'],
    ['http://[::ffff:127.0.0.1]/hook', 'a loopback address'],
  ])('refuses %s when private addresses are not allowed', async (url, reason) => {
    const refusal = resolveDeliveryTarget(url, {});
    await expect(refusal).rejects.toBeInstanceOf(CallbackUrlError);
    await expect(refusal).rejects.toThrow(reason);
  });

  it('connects to the address it checked, keeping the URL (Host, TLS name) as given', async () => {
    const target = await resolveDeliveryTarget('http://localhost:8080/hook?x=1', { allowPrivate: true });
    expect(['127.0.0.1', '::1']).toContain(target.address);
    expect(target.family).toBe(target.address === '::1' ? 6 : 4);
    expect(target.url.toString()).toBe('http://localhost:8080/hook?x=1');
    expect(await resolveDeliveryTarget('http://[::1]:9/', { allowPrivate: true })).toMatchObject({ address: '::1', family: 6 });
    expect(await resolveDeliveryTarget('http://93.184.215.14/', {})).toMatchObject({ address: '93.184.215.14', family: 4 });
  });

  it('refuses other schemes', async () => {
    await expect(resolveDeliveryTarget('ftp://93.184.215.14/', { allowPrivate: true })).rejects.toThrow(
      'callback_url must use http or https',
    );
  });
});
