import { GatewayAddressEnv, IntSetting } from '@workline/config';
import { IsIn, IsString, MinLength } from 'class-validator';

const PerMinute = () => IntSetting(0, 10_000_000);

/** Gateway settings on top of BaseEnv and its address (PORT, PUBLIC_URL); see the README's configuration table. */
export class GatewayEnv extends GatewayAddressEnv {
  @IsString({ message: 'ADMIN_TOKEN must be set: the bearer token of the admin API' })
  @MinLength(16, { message: 'ADMIN_TOKEN must be at least 16 characters long' })
  ADMIN_TOKEN!: string;

  /** Largest JSON body accepted, in bytes (also the limit behind 413). */
  @IntSetting(1024, 256 * 1024 * 1024)
  BODY_LIMIT_BYTES: number = 10 * 1024 * 1024;

  /**
   * How long an idle keep-alive connection stays open. Longer than the idle timeout of whatever sits in front
   * (60 s on common load balancers): a server that closes first races the client's next request on that
   * connection, which then fails with "socket hang up" (or a load balancer's 502).
   */
  @IntSetting(1000, 600_000)
  HTTP_KEEP_ALIVE_MS: number = 65_000;

  /** false withdraws the deprecated platform API v3: /v3 answers 410. */
  @IsIn(['0', '1', 'true', 'false'])
  V3_ENABLED: string = 'true';

  get v3Enabled(): boolean {
    return this.V3_ENABLED === '1' || this.V3_ENABLED === 'true';
  }

  /** Failed authentications one client address may make per window before it gets 429. */
  @IntSetting(1, 1_000_000)
  AUTH_FAILURE_LIMIT: number = 20;

  @IntSetting(1, 86_400)
  AUTH_FAILURE_WINDOW_SECONDS: number = 300;

  /**
   * Proxies trusted for the client address (Fastify trustProxy, a hop count): 0 (default) uses the socket address; 1 (or more hops) trusts
   * X-Forwarded-For.
   */
  @IntSetting(0, 10)
  TRUST_PROXY: number = 0;

  /** Requests per minute one credential (or, without one, one client address) may make per API group; 0 = unlimited. */
  @PerMinute() RATE_LIMIT_V1_PER_MINUTE: number = 1200;
  @PerMinute() RATE_LIMIT_V4_PER_MINUTE: number = 1200;
  @PerMinute() RATE_LIMIT_V3_PER_MINUTE: number = 600;
  @PerMinute() RATE_LIMIT_WORK_PER_MINUTE: number = 1200;
  @PerMinute() RATE_LIMIT_ADMIN_PER_MINUTE: number = 300;

  get rateLimits(): { v1: number; v4: number; v3: number; work: number; admin: number } {
    return {
      v1: this.RATE_LIMIT_V1_PER_MINUTE,
      v4: this.RATE_LIMIT_V4_PER_MINUTE,
      v3: this.RATE_LIMIT_V3_PER_MINUTE,
      work: this.RATE_LIMIT_WORK_PER_MINUTE,
      admin: this.RATE_LIMIT_ADMIN_PER_MINUTE,
    };
  }
}
