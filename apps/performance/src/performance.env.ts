import { BaseEnv } from '@workline/config';
import { IsInt, Max, Min } from 'class-validator';

/** Performance settings on top of BaseEnv; see the README's configuration table. */
export class PerformanceEnv extends BaseEnv {
  /** How often the files of finished and abandoned CSV uploads are looked for and deleted (docs/operations.md). */
  @IsInt()
  @Min(1)
  @Max(86_400)
  UPLOAD_SWEEP_INTERVAL_SECONDS: number = 600;
}
