import { BaseEnv } from '@workline/config';
import { IsInt, Max, Min } from 'class-validator';

/** platform-runs settings on top of BaseEnv. */
export class PlatformRunsEnv extends BaseEnv {
  /** How long a worker holds a unit (work API lease) before it goes back to the queue. */
  @IsInt()
  @Min(5)
  @Max(24 * 3600)
  UNIT_LEASE_SECONDS: number = 15 * 60;

  /**
   * A run read (GET) whose JSON is larger than this travels through the blob store instead of the shared
   * RPC reply topic, which every gateway instance reads (docs/decisions.md).
   */
  @IsInt()
  @Min(1024)
  @Max(64 * 1024 * 1024)
  RPC_REPLY_INLINE_BYTES: number = 256 * 1024;

  /**
   * How long an instance holds the units it claimed (in batches) to hand them out from memory; units it
   * has not leased by then, or held when it crashed, go back to the queue.
   */
  @IsInt()
  @Min(1)
  @Max(300)
  UNIT_RESERVATION_SECONDS: number = 10;

  /** Units a claim reserves beyond the `next` requests waiting for it (0: exactly those). */
  @IsInt()
  @Min(0)
  @Max(1000)
  UNIT_CLAIM_AHEAD: number = 16;
}
