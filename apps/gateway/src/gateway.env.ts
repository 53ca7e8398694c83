import { BaseEnv } from '@workline/config';
import { IsInt, IsString, Matches, Max, Min, MinLength, ValidateIf } from 'class-validator';

const DEVELOPMENT_SECRETS_KEY = 'workline-development-secrets-key-do-not-use-in-production';

/** Gateway settings on top of BaseEnv; see the README's configuration table. */
export class GatewayEnv extends BaseEnv {
  @IsInt() @Min(1) @Max(65535)
  PORT: number = 3000;

  @IsString({ message: 'ADMIN_TOKEN must be set: the bearer token of the admin API' })
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters long' })
  ADMIN_TOKEN!: string;

  /** Encrypts API keys at rest. Required in production; development uses a fixed, public default. */
  @ValidateIf((env: GatewayEnv) => env.NODE_ENV === 'production' || env.SECRETS_KEY !== undefined)
  @IsString({ message: 'SECRETS_KEY must be set in production: it encrypts API keys at rest' })
  @MinLength(32, { message: 'SECRETS_KEY must be at least 32 characters long' })
  SECRETS_KEY?: string;

  /** Largest JSON body accepted, in bytes (also the limit behind 413). */
  @IsInt() @Min(1024) @Max(256 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 10 * 1024 * 1024;

  @Matches(/^https?:\/\/\S+$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  @ValidateIf((env: GatewayEnv) => env.PUBLIC_URL !== undefined)
  PUBLIC_URL?: string;

  get secretsKey(): string {
    return this.SECRETS_KEY ?? DEVELOPMENT_SECRETS_KEY;
  }

  get publicUrl(): string {
    return this.PUBLIC_URL ?? `http://127.0.0.1:${this.PORT}`;
  }
}
