import { type DynamicModule, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import Redis from 'ioredis';

/**
 * How long a command waits for Redis's answer before it fails (callers then fail open, docs/decisions.md
 * "Redis outages"). Without it, a connection that is up but silent (a network partition, a black hole:
 * no reset, no answer) held every request that touches Redis until the path healed.
 */
export const REDIS_COMMAND_TIMEOUT_MS = 1000;

/**
 * The app's Redis connection. Redis holds only what may be lost (rate-limit windows, quotas, caches):
 * nothing accepted by Workline depends on it surviving a restart or a FLUSHALL.
 */
@Injectable()
export class RedisService extends Redis implements OnApplicationShutdown {
  constructor(url: string, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS) {
    super(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, commandTimeout: commandTimeoutMs });
    this.on('error', () => undefined);
  }

  /** Resolves to undefined when Redis answers PING, or the error text when it does not. */
  async probe(): Promise<string | undefined> {
    try {
      return (await this.ping()) === 'PONG' ? undefined : 'unexpected PING answer';
    } catch (error) {
      return errorMessage(error);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.quit().catch(() => this.disconnect());
  }
}

@Module({})
export class RedisModule {
  static forRoot(url: string): DynamicModule {
    return {
      module: RedisModule,
      global: true,
      providers: [{ provide: RedisService, useFactory: () => new RedisService(url) }],
      exports: [RedisService],
    };
  }
}
