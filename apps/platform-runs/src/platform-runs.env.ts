import { BaseEnv } from '@workline/config';
import { IsInt, Max, Min } from 'class-validator';

/** platform-runs settings on top of BaseEnv. */
export class PlatformRunsEnv extends BaseEnv {
  /** How long a worker holds a unit (work API lease) before it goes back to the queue. */
  @IsInt() @Min(5) @Max(24 * 3600)
  UNIT_LEASE_SECONDS: number = 15 * 60;

  /**
   * A run read (GET) whose JSON is larger than this travels through the blob store instead of the shared
   * RPC reply topic, which every gateway instance reads (docs/decisions.md).
   */
  @IsInt() @Min(1024) @Max(64 * 1024 * 1024)
  RPC_REPLY_INLINE_BYTES: number = 256 * 1024;
}
