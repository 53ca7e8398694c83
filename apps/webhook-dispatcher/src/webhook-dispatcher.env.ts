import { BaseEnv } from '@workline/config';
import { DEFAULT_RETRY_BASE_MS } from '@workline/webhook-dispatcher';
import { IsInt, Max, Min } from 'class-validator';

/** webhook-dispatcher settings on top of BaseEnv; see docs/webhooks.md. */
export class WebhookDispatcherEnv extends BaseEnv {
  /** Scales the retry waits: 1 h, 2 h, 4 h, 8 h at the default (one hour). Tests shorten it. */
  @IsInt({ message: 'WEBHOOK_RETRY_BASE_MS must be an integer number of milliseconds' })
  @Min(10, { message: 'WEBHOOK_RETRY_BASE_MS must be at least 10' })
  @Max(86_400_000, { message: 'WEBHOOK_RETRY_BASE_MS must be at most 86400000 (one day)' })
  WEBHOOK_RETRY_BASE_MS: number = DEFAULT_RETRY_BASE_MS;

  /** How often an idle instance looks for due deliveries. */
  @IsInt()
  @Min(20)
  @Max(60_000)
  WEBHOOK_POLL_MS: number = 500;

  /** Attempts one instance makes at once. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_CONCURRENCY: number = 32;

  /** Attempts one instance makes at once to one origin (scheme, host, port): one slow receiver holds no more. */
  @IsInt()
  @Min(1)
  @Max(1000)
  WEBHOOK_ORIGIN_CONCURRENCY: number = 8;
}
