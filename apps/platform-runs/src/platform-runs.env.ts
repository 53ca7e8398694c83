import { BaseEnv } from '@workline/config';
import { IsInt, Max, Min } from 'class-validator';

/** platform-runs settings on top of BaseEnv. */
export class PlatformRunsEnv extends BaseEnv {
  /** How long a worker holds a unit (work API lease) before it goes back to the queue. */
  @IsInt() @Min(5) @Max(24 * 3600)
  UNIT_LEASE_SECONDS: number = 15 * 60;
}
