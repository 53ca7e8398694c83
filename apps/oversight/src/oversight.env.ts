import { BaseEnv } from '@workline/config';
import { IsInt, Matches, Max, Min, ValidateIf } from 'class-validator';

/** Oversight settings on top of BaseEnv; see docs/oversight-api.md. */
export class OversightEnv extends BaseEnv {
  /** The gateway's port: only used for the default of PUBLIC_URL, as in the gateway. */
  @IsInt() @Min(1) @Max(65535)
  PORT: number = 3000;

  /** The gateway's public base URL, where workers fetch task media (must equal the gateway's PUBLIC_URL). */
  @Matches(/^https?:\/\/\S+$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  @ValidateIf((env: OversightEnv) => env.PUBLIC_URL !== undefined)
  PUBLIC_URL?: string = undefined;

  /** How long a worker holds a task (and its media URL stays valid) before the task is offered again. */
  @IsInt() @Min(10) @Max(7 * 24 * 3600)
  TASK_LEASE_SECONDS: number = 30 * 60;

  get publicUrl(): string {
    return (this.PUBLIC_URL ?? `http://127.0.0.1:${this.PORT}`).replace(/\/+$/, '');
  }
}
