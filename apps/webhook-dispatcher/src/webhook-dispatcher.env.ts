import { BaseEnv, IntSetting } from '@workline/config';
import { DEFAULT_LEASE_MS, DEFAULT_RETRY_BASE_MS, MIN_LEASE_MS } from '@workline/webhook-dispatcher';
import { IsInt, Max, Min } from 'class-validator';

/** webhook-dispatcher settings on top of BaseEnv; see docs/webhooks.md. */
export class WebhookDispatcherEnv extends BaseEnv {
  /** Scales the retry waits: 1 h, 2 h, 4 h, 8 h at the default (one hour). Tests shorten it. */
  @IsInt({ message: 'WEBHOOK_RETRY_BASE_MS must be an integer number of milliseconds' })
  @Min(10, { message: 'WEBHOOK_RETRY_BASE_MS must be at least 10' })
  @Max(86_400_000, { message: 'WEBHOOK_RETRY_BASE_MS must be at most 86400000 (one day)' })
  WEBHOOK_RETRY_BASE_MS: number = DEFAULT_RETRY_BASE_MS;

  /** How often an idle instance looks for due deliveries. */
  @IntSetting(20, 60_000)
  WEBHOOK_POLL_MS: number = 500;

  /** Attempts one instance makes at once. */
  @IntSetting(1, 1000)
  WEBHOOK_CONCURRENCY: number = 32;

  /** Attempts one instance makes at once to one origin (scheme, host, port): one slow receiver holds no more. */
  @IntSetting(1, 1000)
  WEBHOOK_ORIGIN_CONCURRENCY: number = 8;

  /**
   * How long a delivery stays leased to the instance that claimed it: after a crash, how long its deliveries wait
   * before another instance makes their attempts. Shorter leases hold fewer deliveries per instance.
   */
  @IsInt({ message: 'WEBHOOK_LEASE_MS must be an integer number of milliseconds' })
  @Min(MIN_LEASE_MS, { message: `WEBHOOK_LEASE_MS must be at least ${MIN_LEASE_MS} (two attempt timeouts and the outcome's margin)` })
  @Max(600_000, { message: 'WEBHOOK_LEASE_MS must be at most 600000 (ten minutes)' })
  WEBHOOK_LEASE_MS: number = DEFAULT_LEASE_MS;
}
