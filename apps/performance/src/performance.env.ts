import { BaseEnv, IntSetting } from '@workline/config';

/** Performance settings on top of BaseEnv; see the README's configuration table. */
export class PerformanceEnv extends BaseEnv {
  /** How often the files of finished and abandoned CSV uploads are looked for and deleted (docs/operations.md). */
  @IntSetting(1, 86_400)
  UPLOAD_SWEEP_INTERVAL_SECONDS: number = 600;
}
