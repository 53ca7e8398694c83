import { CallbackUrlError } from '@workline/callback-url';
import { attemptErrorText, resolveDeliveryTarget } from './http-attempt';

const failure = (message: string, code?: string): NodeJS.ErrnoException => Object.assign(new Error(message), code ? { code } : {});

describe("an attempt's error text (attemptErrorText)", () => {
  it.each([
    ['connect ECONNREFUSED 10.1.2.3:443', 'ECONNREFUSED', 'ECONNREFUSED: the receiver refused the connection'],
    ['read ECONNRESET', 'ECONNRESET', 'ECONNRESET: the connection was reset'],
    ['connect EHOSTUNREACH 10.1.2.3:443 - Local (0.0.0.0:0)', 'EHOSTUNREACH', "EHOSTUNREACH: the receiver's host is unreachable"],
    ['connect ENETUNREACH 2001:db8::7:443', 'ENETUNREACH', "ENETUNREACH: the receiver's network is unreachable"],
    ['connect ETIMEDOUT 10.1.2.3:443', 'ETIMEDOUT', 'ETIMEDOUT: the connection timed out'],
    [
      'Connect Timeout Error (attempted address: hooks.example.com:443, timeout: 5000ms)',
      'UND_ERR_CONNECT_TIMEOUT',
      'UND_ERR_CONNECT_TIMEOUT: the connection was not made in time',
    ],
    [
      'other side closed - Local: 10.9.9.9:5000, Remote: 10.1.2.3:443',
      'UND_ERR_SOCKET',
      'UND_ERR_SOCKET: the connection closed before the answer',
    ],
  ])('names %s by its code, without the address', (message, code, text) => {
    expect(attemptErrorText(failure(message, code), '10.1.2.3')).toBe(text);
  });

  it('takes the checked address, with its port, and every IPv4 address out of any other text', () => {
    expect(
      attemptErrorText(
        failure(
          "Hostname/IP does not match certificate's altnames: IP: 10.1.2.3 is not in the cert's list: ",
          'ERR_TLS_CERT_ALTNAME_INVALID',
        ),
        '10.1.2.3',
      ),
    ).toBe(
      "ERR_TLS_CERT_ALTNAME_INVALID: Hostname/IP does not match certificate's altnames: IP: the receiver's address is " +
        "not in the cert's list: ",
    );
    expect(attemptErrorText(failure('connect EPROTO [fd12:3456::1]:8443 and fd12:3456::1 again', 'EPROTO'), 'fd12:3456::1')).toBe(
      "EPROTO: connect EPROTO the receiver's address and the receiver's address again",
    );
    expect(attemptErrorText(failure('bad answer from 192.168.7.7:80 via 10.0.0.1'), '2001:db8::1')).toBe(
      "bad answer from the receiver's address via the receiver's address",
    );
    expect(attemptErrorText(failure('certificate has expired', 'CERT_HAS_EXPIRED'), '10.1.2.3')).toBe(
      'CERT_HAS_EXPIRED: certificate has expired',
    );
  });
});

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
