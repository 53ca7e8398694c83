import { BaseEnv, IntSetting } from '@workline/config';

/** platform-runs settings on top of BaseEnv. */
export class PlatformRunsEnv extends BaseEnv {
  /** How long a worker holds a unit (work API lease) before it goes back to the queue. */
  @IntSetting(5, 24 * 3600)
  UNIT_LEASE_SECONDS: number = 15 * 60;

  /**
   * A run read (GET) whose JSON is larger than this travels through the blob store instead of the shared
   * RPC reply topic, which every gateway instance reads (docs/decisions.md).
   */
  @IntSetting(1024, 64 * 1024 * 1024)
  RPC_REPLY_INLINE_BYTES: number = 256 * 1024;

  /**
   * How long an instance holds the units it claimed (in batches) to hand them out from memory; units it
   * has not leased by then, or held when it crashed, go back to the queue.
   */
  @IntSetting(1, 300)
  UNIT_RESERVATION_SECONDS: number = 10;

  /** Units a claim reserves beyond the `next` requests waiting for it (0: exactly those). */
  @IntSetting(0, 1000)
  UNIT_CLAIM_AHEAD: number = 16;
}
