import { IntSetting } from '@workline/config';
import type { PerformanceUploadKind } from '@workline/contracts';

const GIB = 1024 * 1024 * 1024;

/**
 * Settings of the performance API in the gateway (docs/performance-api.md), read from the environment next
 * to GatewayEnv so this feature module stays self-contained.
 */
export class PerformanceApiEnv {
  /** Largest quality CSV file on an upload URL, in bytes (413 above it). */
  @IntSetting(1, 64 * GIB)
  QUALITY_CSV_MAX_BYTES: number = 2 * GIB;

  /** Largest throughput CSV file on an upload URL, in bytes (413 above it). */
  @IntSetting(1, 64 * GIB)
  THROUGHPUT_CSV_MAX_BYTES: number = 2 * GIB;

  csvMaxBytes(kind: PerformanceUploadKind): number {
    return kind === 'quality' ? this.QUALITY_CSV_MAX_BYTES : this.THROUGHPUT_CSV_MAX_BYTES;
  }
}
