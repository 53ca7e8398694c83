import { GatewayAddressEnv, IntSetting } from '@workline/config';

/**
 * Oversight settings on top of BaseEnv and the gateway's address (PORT, PUBLIC_URL: set them as for the
 * gateway, whose public URL the media URLs given to workers point at); see docs/oversight-api.md.
 */
export class OversightEnv extends GatewayAddressEnv {
  /** How long a worker holds a task (and its media URL stays valid) before the task is offered again. */
  @IntSetting(10, 7 * 24 * 3600)
  TASK_LEASE_SECONDS: number = 30 * 60;

  /**
   * How long after its upload URL expired a media_key can still be used to create tasks. Then the grant is
   * removed, and its media deleted unless a task uses it (docs/oversight-api.md).
   */
  @IntSetting(0, 365 * 24 * 3600)
  MEDIA_KEY_RETENTION_SECONDS: number = 24 * 3600;

  /** How often expired upload grants are looked for (docs/operations.md, "Upload file sweeps"). */
  @IntSetting(1, 86_400)
  UPLOAD_SWEEP_INTERVAL_SECONDS: number = 600;
}
