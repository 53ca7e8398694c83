import { BaseEnv, EnvError, GatewayAddressEnv, IntSetting, loadEnv } from './env';

class AppEnv extends BaseEnv {
  @IntSetting(1, 65535)
  PORT: number = 3000;

  @IntSetting(5)
  BATCH_SIZE: number = 10;
}

describe('loadEnv', () => {
  it('applies defaults and converts numbers', () => {
    const env = loadEnv(AppEnv, { PORT: '3100' });
    expect(env.PORT).toBe(3100);
    expect(env.kafkaBrokers).toEqual(['127.0.0.1:9092']);
  });

  it('names every bad variable and its rule', () => {
    let error: unknown;
    try {
      loadEnv(AppEnv, { PORT: 'abc', DATABASE_URL: 'mysql://x', KAFKA_BROKERS: 'nohostport' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT: .*PORT must be an integer number/);
    expect(message).toMatch(/DATABASE_URL: DATABASE_URL must be a postgresql:\/\/ connection URL/);
    expect(message).toMatch(/KAFKA_BROKERS: KAFKA_BROKERS must be a comma-separated list of host:port/);
  });

  it('never prints a rejected value, secret or not', () => {
    const rejected: Record<string, string> = {
      SECRETS_KEY: 'short-secret-key-13',
      DATABASE_URL: 'mysql://admin:Hunter2-db-password@db/x',
      REDIS_URL: 'http://:redis-password-77@cache',
      KAFKA_BROKERS: 'broker-without-port',
      NODE_ENV: 'prod-typo-value',
      LOG_LEVEL: 'chatty-level',
      PORT: 'port-typo-value',
      HTTP_PORT: 'http-port-typo',
      WEBHOOK_ALLOW_PRIVATE: 'maybe-allow',
    };
    let message = '';
    try {
      loadEnv(AppEnv, rejected);
    } catch (e) {
      message = (e as Error).message;
    }
    for (const [name, value] of Object.entries(rejected)) {
      expect(message).toContain(`  ${name}: `);
      expect(message).not.toContain(value);
    }
    expect(message).not.toMatch(/Hunter2|redis-password|got/);
  });

  it('reads the callback guard: 0, 1, a list of ranges, DNS servers', () => {
    expect(loadEnv(AppEnv, {}).callbackPolicy).toEqual({ allowPrivate: false, allowedRanges: [], dnsServers: [] });
    expect(loadEnv(AppEnv, { WEBHOOK_ALLOW_PRIVATE: '1' }).callbackPolicy.allowPrivate).toBe(true);
    expect(
      loadEnv(AppEnv, { WEBHOOK_ALLOW_PRIVATE: '127.0.0.1, 10.20.0.0/16,fd00::/8', WEBHOOK_DNS_SERVERS: '127.0.0.1:5353,[::1]:53,1.1.1.1' })
        .callbackPolicy,
    ).toEqual({
      allowPrivate: false,
      allowedRanges: ['127.0.0.1', '10.20.0.0/16', 'fd00::/8'],
      dnsServers: ['127.0.0.1:5353', '[::1]:53', '1.1.1.1'],
    });
    expect(() => loadEnv(AppEnv, { WEBHOOK_ALLOW_PRIVATE: '10.0.0.0/33' })).toThrow(
      /WEBHOOK_ALLOW_PRIVATE must be 0, 1, or a comma-separated list of addresses or CIDR ranges/,
    );
    expect(() => loadEnv(AppEnv, { WEBHOOK_DNS_SERVERS: 'dns.example.com' })).toThrow(
      /WEBHOOK_DNS_SERVERS must be a comma-separated list of ip or ip:port/,
    );
  });

  it('rejects a port out of range', () => {
    expect(() => loadEnv(AppEnv, { PORT: '70000' })).toThrow(/PORT/);
  });

  it('checks an integer setting against its bounds, in the messages class-validator gives', () => {
    const problems = (source: Record<string, string>) => {
      try {
        loadEnv(AppEnv, source);
        return '';
      } catch (e) {
        return (e as Error).message;
      }
    };
    expect(problems({ PORT: '70000' })).toContain('  PORT: PORT must not be greater than 65535');
    expect(problems({ PORT: '0' })).toContain('  PORT: PORT must not be less than 1');
    // Not an integer at all: that alone, not also bounds it cannot be compared with.
    expect(problems({ PORT: '1.5' }).split('\n')).toContain('  PORT: PORT must be an integer number');
    expect(problems({ PORT: 'abc' }).split('\n')).toContain('  PORT: PORT must be an integer number');
    expect(problems({ BATCH_SIZE: '4' })).toContain('  BATCH_SIZE: BATCH_SIZE must not be less than 5');
    expect(loadEnv(AppEnv, { BATCH_SIZE: '9000000' }).BATCH_SIZE).toBe(9_000_000);
  });
});

describe('GatewayAddressEnv', () => {
  it('derives the public URL from PORT when PUBLIC_URL is unset', () => {
    expect(loadEnv(GatewayAddressEnv, {}).publicUrl).toBe('http://127.0.0.1:3000');
    expect(loadEnv(GatewayAddressEnv, { PORT: '3100' }).publicUrl).toBe('http://127.0.0.1:3100');
  });

  it('drops trailing slashes of PUBLIC_URL, since paths are appended to it', () => {
    expect(loadEnv(GatewayAddressEnv, { PUBLIC_URL: 'https://api.example.com/workline//' }).publicUrl).toBe(
      'https://api.example.com/workline',
    );
  });

  it('refuses a PUBLIC_URL that is not http(s)', () => {
    expect(() => loadEnv(GatewayAddressEnv, { PUBLIC_URL: 'ftp://files.example.com' })).toThrow(/PUBLIC_URL must be an http\(s\) URL/);
  });
});
