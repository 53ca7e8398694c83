import 'reflect-metadata';
import { type CallbackPolicy, parseAddressRange } from '@workline/callback-url';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsString, Matches, Max, Min, MinLength, ValidateBy, ValidateIf, validateSync } from 'class-validator';
import { randomBytes } from 'node:crypto';
import { isIP } from 'node:net';
import { hostname } from 'node:os';

/**
 * An integer setting within [min, max] (no upper bound when max is left out), with class-validator's
 * messages. Applied bottom-up like the stacked decorators it stands for, so the messages keep their order.
 */
export const IntSetting =
  (min: number, max?: number): PropertyDecorator =>
  (target, property) => {
    if (max !== undefined) Max(max)(target, property as string);
    Min(min)(target, property as string);
    IsInt()(target, property as string);
  };

const DEVELOPMENT_SECRETS_KEY = 'workline-development-secrets-key-do-not-use-in-production';

const listOf = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter(Boolean);

/** `1.1.1.1`, `1.1.1.1:53`, `2606:4700:4700::1111` or `[2606:4700:4700::1111]:53`. */
function isDnsServer(text: string): boolean {
  const bracketed = /^\[([^\]]+)\](?::(\d{1,5}))?$/.exec(text);
  if (bracketed) return isIP(bracketed[1]) === 6 && (bracketed[2] === undefined || Number(bracketed[2]) <= 65535);
  if (isIP(text)) return true;
  const withPort = /^([\d.]+):(\d{1,5})$/.exec(text);
  return !!withPort && isIP(withPort[1]) === 4 && Number(withPort[2]) <= 65535;
}

const IsCallbackAllowance = () =>
  ValidateBy({
    name: 'isCallbackAllowance',
    validator: {
      validate: (value: unknown) =>
        typeof value === 'string' &&
        (['0', '1', 'true', 'false'].includes(value.trim()) ||
          (listOf(value).length > 0 && listOf(value).every((item) => parseAddressRange(item) !== undefined))),
      defaultMessage: () => 'WEBHOOK_ALLOW_PRIVATE must be 0, 1, or a comma-separated list of addresses or CIDR ranges (e.g. 10.20.0.0/16)',
    },
  });

const IsDnsServerList = () =>
  ValidateBy({
    name: 'isDnsServerList',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && listOf(value).every(isDnsServer),
      defaultMessage: () => 'WEBHOOK_DNS_SERVERS must be a comma-separated list of ip or ip:port ([ipv6]:port)',
    },
  });

/** Where the gateway listens (PORT) unless told; the services' operational ports follow it (serviceOpsPort). */
export const DEFAULT_GATEWAY_PORT = 3000;
/** The Kafka broker's port in the default KAFKA_BROKERS, where `npm start` runs its local broker (controller: + 1). */
export const DEFAULT_KAFKA_PORT = 9092;

/** The database and Redis of a local `npm start` (DATABASE_URL, REDIS_URL unset). */
export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/workline';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379/0';

/** Settings every app reads. Defaults suit a local `npm start`; see the README's configuration table. */
export class BaseEnv {
  @IsIn(['development', 'test', 'production'])
  NODE_ENV: string = 'development';

  @Matches(/^postgres(ql)?:\/\/\S+$/, { message: 'DATABASE_URL must be a postgresql:// connection URL' })
  DATABASE_URL: string = DEFAULT_DATABASE_URL;

  /** Connections of the app's PostgreSQL pool (shared by Prisma and the raw-SQL hot paths). */
  @IntSetting(1, 1000)
  DATABASE_POOL_SIZE: number = 10;

  @Matches(/^[^\s,]+:\d+(,[^\s,]+:\d+)*$/, { message: 'KAFKA_BROKERS must be a comma-separated list of host:port' })
  KAFKA_BROKERS: string = `127.0.0.1:${DEFAULT_KAFKA_PORT}`;

  @Matches(/^rediss?:\/\/\S+$/, { message: 'REDIS_URL must be a redis:// (or rediss://) URL' })
  REDIS_URL: string = DEFAULT_REDIS_URL;

  @IsIn(['error', 'warn', 'log', 'debug', 'verbose'])
  LOG_LEVEL: string = 'log';

  /** json: one JSON object a line (pino); pretty: one readable line per event, for a terminal. */
  @IsIn(['json', 'pretty'])
  LOG_FORMAT: string = 'json';

  /**
   * Port of a Kafka service's operational endpoints (/metrics, /health/live, /health/ready). Unset: the
   * service's default (performance 3001, oversight 3002, platform-runs 3003, webhook-dispatcher 3004);
   * 0: a free port picked by the OS (see HTTP_PORT_FILE). The gateway serves them on PORT.
   */
  @IntSetting(0, 65535)
  HTTP_PORT: number = 0;

  /** When set, a service writes the port its operational endpoints listen on into this file (tests). */
  @IsString()
  HTTP_PORT_FILE: string = '';

  /** After SIGTERM: how long readiness answers 503 while the app still works, before it stops intake. */
  @IntSetting(0, 120_000)
  SHUTDOWN_DELAY_MS: number = 0;

  /** Distinguishes instances of one app (Kafka client ids, reply routing). */
  @IsString()
  INSTANCE_ID: string = `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;

  @IntSetting(100, 120_000)
  RPC_TIMEOUT_MS: number = 10_000;

  /**
   * How long a service keeps an outbox row after publishing it (what it sent, for audits and support),
   * before its relay deletes it; 0 keeps them for ever. Default: the event topics' retention, 7 days.
   */
  @IntSetting(0, 24 * 365)
  OUTBOX_RETENTION_HOURS: number = 168;

  /** How long Kafka waits for a silent consumer (a crashed instance) before giving its partitions to the others. */
  @IntSetting(6_000, 300_000)
  KAFKA_SESSION_TIMEOUT_MS: number = 30_000;

  /** Directory of the filesystem blob store (uploaded media and CSV files); shared by the apps. */
  @IsString()
  BLOB_DIR: string = '.cache/blobs';

  /**
   * The SSRF guard of callback URLs: 0 refuses every non-public address; 1 lifts it (local development);
   * a comma-separated list of addresses or CIDR ranges lets those through (cloud metadata addresses never).
   */
  @IsCallbackAllowance()
  WEBHOOK_ALLOW_PRIVATE: string = '0';

  /** `ip` or `ip:port` list: callback hosts are resolved by asking these DNS servers, not the system resolver. */
  @IsDnsServerList()
  WEBHOOK_DNS_SERVERS: string = '';

  /** How callback URLs are checked (libs/callback-url). */
  get callbackPolicy(): CallbackPolicy {
    const allow = this.WEBHOOK_ALLOW_PRIVATE.trim();
    const allowPrivate = allow === '1' || allow === 'true';
    const allowedRanges = allowPrivate || allow === '0' || allow === 'false' ? [] : listOf(allow);
    return { allowPrivate, allowedRanges, dnsServers: listOf(this.WEBHOOK_DNS_SERVERS) };
  }

  /**
   * Encrypts secrets at rest and in Kafka (API keys, callback credentials); every app must share it.
   * Required in production; development and tests use a fixed, public default.
   */
  @ValidateIf((env: BaseEnv) => env.NODE_ENV === 'production' || env.SECRETS_KEY !== undefined)
  @IsString({ message: 'SECRETS_KEY must be set in production: it encrypts API keys at rest' })
  @MinLength(32, { message: 'SECRETS_KEY must be at least 32 characters long' })
  SECRETS_KEY?: string;

  get secretsKey(): string {
    return this.SECRETS_KEY ?? DEVELOPMENT_SECRETS_KEY;
  }

  get kafkaBrokers(): string[] {
    return this.KAFKA_BROKERS.split(',');
  }
}

/**
 * Where clients reach the gateway (PORT, PUBLIC_URL). Read by the gateway and by oversight, which builds the
 * media URLs workers fetch through the gateway: one definition, so the two agree on the default and the form.
 */
export class GatewayAddressEnv extends BaseEnv {
  @IntSetting(1, 65535)
  PORT: number = DEFAULT_GATEWAY_PORT;

  @Matches(/^https?:\/\/\S+$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  @ValidateIf((env: GatewayAddressEnv) => env.PUBLIC_URL !== undefined)
  PUBLIC_URL?: string = undefined;

  /** PUBLIC_URL without trailing slashes (paths are appended to it), else the gateway's loopback address. */
  get publicUrl(): string {
    return (this.PUBLIC_URL ?? `http://127.0.0.1:${this.PORT}`).replace(/\/+$/, '');
  }
}

/** Raised with one line per bad variable, each naming it and its rule (never its value). */
export class EnvError extends Error {}

const numeric = /^-?\d+$/;

/**
 * The rules a value breaks, as class-validator words them; a number setting that is no integer at all breaks
 * only that one (its bounds say nothing of it).
 */
function rulesBroken(value: unknown, constraints: Record<string, string>): string {
  if (Number.isNaN(value) && constraints.isInt) return constraints.isInt;
  return Object.values(constraints).join('; ');
}

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
    // Names the variable and the rule it breaks, never the value: secrets (ADMIN_TOKEN, SECRETS_KEY) and
    // URLs with passwords in them (DATABASE_URL, REDIS_URL) would otherwise end up in the start-up log.
    const lines = errors.map((e) => `  ${e.property}: ${rulesBroken(e.value, e.constraints ?? {})}`);
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
