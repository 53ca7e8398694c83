import { IntSetting } from '@workline/config';
import type { TaskQuotaPolicy } from '@workline/task-quota';

/** The blob store of uploaded media (driver chosen by BLOB_DRIVER, see BlobStoreEnv). */
export const MEDIA_BLOB_STORE = Symbol('MEDIA_BLOB_STORE');

/**
 * Settings of the oversight API in the gateway (docs/oversight-api.md), read from the environment next
 * to GatewayEnv so this feature module stays self-contained.
 */
export class OversightApiEnv {
  /** Largest media upload, in bytes (413 above it). */
  @IntSetting(1, 5 * 1024 * 1024 * 1024)
  MEDIA_MAX_BYTES: number = 100 * 1024 * 1024;

  /** How long a media_upload_url stays valid. */
  @IntSetting(1, 7 * 24 * 3600)
  MEDIA_UPLOAD_URL_TTL_SECONDS: number = 3600;

  /** Task creations per workstream per UTC day, ISO week and calendar month (429 above any of them). */
  @IntSetting(1)
  TASK_QUOTA_PER_DAY: number = 10_000;

  @IntSetting(1)
  TASK_QUOTA_PER_WEEK: number = 50_000;

  @IntSetting(1)
  TASK_QUOTA_PER_MONTH: number = 200_000;

  /** How often each gateway copies the limits support set (PostgreSQL) to Redis again, after Redis lost them. */
  @IntSetting(1, 3600)
  TASK_QUOTA_SYNC_SECONDS: number = 30;

  get taskQuota(): TaskQuotaPolicy {
    return {
      defaultLimits: { day: this.TASK_QUOTA_PER_DAY, week: this.TASK_QUOTA_PER_WEEK, month: this.TASK_QUOTA_PER_MONTH },
      syncSeconds: this.TASK_QUOTA_SYNC_SECONDS,
    };
  }
}
