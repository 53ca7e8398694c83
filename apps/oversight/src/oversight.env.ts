import { BaseEnv } from '@workline/config';
import { IsInt, Matches, Max, Min, ValidateIf } from 'class-validator';

/** Oversight settings on top of BaseEnv; see docs/oversight-api.md. */
export class OversightEnv extends BaseEnv {
  /** The gateway's port: only used for the default of PUBLIC_URL, as in the gateway. */
  @IsInt()
  @Min(1)
  @Max(65535)
  PORT: number = 3000;

  /** The gateway's public base URL, where workers fetch task media (must equal the gateway's PUBLIC_URL). */
  @Matches(/^https?:\/\/\S+$/, { message: 'PUBLIC_URL must be an http(s) URL' })
  @ValidateIf((env: OversightEnv) => env.PUBLIC_URL !== undefined)
  PUBLIC_URL?: string = undefined;

  /** How long a worker holds a task (and its media URL stays valid) before the task is offered again. */
  @IsInt()
  @Min(10)
  @Max(7 * 24 * 3600)
  TASK_LEASE_SECONDS: number = 30 * 60;

  /**
   * How long after its upload URL expired a media_key can still be used to create tasks. Then the grant is
   * removed, and its media deleted unless a task uses it (docs/oversight-api.md).
   */
  @IsInt()
  @Min(0)
  @Max(365 * 24 * 3600)
  MEDIA_KEY_RETENTION_SECONDS: number = 24 * 3600;

  /** How often expired upload grants are looked for (docs/operations.md, "Upload file sweeps"). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  UPLOAD_SWEEP_INTERVAL_SECONDS: number = 600;

  get publicUrl(): string {
    return (this.PUBLIC_URL ?? `http://127.0.0.1:${this.PORT}`).replace(/\/+$/, '');
  }
}
