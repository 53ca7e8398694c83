import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, Min, validateSync } from 'class-validator';
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';

/** Settings every app reads. Defaults suit a local `npm start`; see the README's configuration table. */
export class BaseEnv {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: string = 'development';

  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgresql:// connection URL' })
  DATABASE_URL: string = 'postgresql://postgres@127.0.0.1:5432/workline';

  @Matches(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, { message: 'KAFKA_BROKERS must be a comma-separated list of host:port' })
  KAFKA_BROKERS: string = '127.0.0.1:9092';

  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// URL' })
  REDIS_URL: string = 'redis://127.0.0.1:6379/0';

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: string = 'log';

  /** Distinguishes instances of one app (Kafka client ids, reply routing). */
  @IsString()
  INSTANCE_ID: string = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

  @IsInt() @Min(100) @Max(120_000)
  RPC_TIMEOUT_MS: number = 10_000;

  @IsOptional() @IsString()
  KAFKA_CLIENT_PREFIX?: string;

  get kafkaBrokers(): string[] {
    return this.KAFKA_BROKERS.split(',');
  }
}

/** Raised with one line per bad variable, each naming it. */
export class EnvError extends Error {}

const numeric = /^-?\d+$/;

/** Reads and validates the environment into `cls`; throws EnvError naming every bad variable. */
export function loadEnv<T extends object>(cls: new () => T, source: NodeJS.ProcessEnv = process.env): T {
  const defaults = new cls() as Record<string, unknown>;
  const raw: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(source)) {
    if (value === undefined || value === '' || !(key in defaults)) continue;
    raw[key] = typeof defaults[key] === 'number' && numeric.test(value) ? Number(value) : typeof defaults[key] === 'number' ? NaN : value;
  }
  const instance = plainToInstance(cls, { ...defaults, ...raw });
  const errors = validateSync(instance);
  if (errors.length) {
    const lines = errors.map((e) => {
      const given = source[e.property];
      return `  ${e.property}: ${Object.values(e.constraints ?? {}).join('; ')}${given !== undefined ? ` (got "${given}")` : ''}`;
    });
    throw new EnvError(`Invalid environment:\n${lines.join('\n')}`);
  }
  return instance;
}

/** loadEnv for a process entry point: prints the problem and exits instead of throwing. */
export function loadEnvOrExit<T extends object>(cls: new () => T, app: string): T {
  try {
    return loadEnv(cls);
  } catch (error) {
    if (error instanceof EnvError) {
      console.error(`${app}: ${error.message}`);
      process.exit(78);
    }
    throw error;
  }
}
