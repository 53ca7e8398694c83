import { IsInt, Max, Min } from 'class-validator';
import { BaseEnv, EnvError, loadEnv } from './env';

class AppEnv extends BaseEnv {
  @IsInt() @Min(1) @Max(65535)
  PORT: number = 3000;
}

describe('loadEnv', () => {
  it('applies defaults and converts numbers', () => {
    const env = loadEnv(AppEnv, { PORT: '3100' });
    expect(env.PORT).toBe(3100);
    expect(env.kafkaBrokers).toEqual(['127.0.0.1:9092']);
  });

  it('names every bad variable and what it got', () => {
    let error: unknown;
    try {
      loadEnv(AppEnv, { PORT: 'abc', DATABASE_URL: 'mysql://x', KAFKA_BROKERS: 'nohostport' });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EnvError);
    const message = (error as Error).message;
    expect(message).toMatch(/PORT: .*\(got "abc"\)/);
    expect(message).toMatch(/DATABASE_URL must be a postgresql:\/\/ connection URL \(got "mysql:\/\/x"\)/);
    expect(message).toMatch(/KAFKA_BROKERS/);
  });

  it('rejects a port out of range', () => {
    expect(() => loadEnv(AppEnv, { PORT: '70000' })).toThrow(/PORT/);
  });
});
