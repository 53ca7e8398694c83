import { type DynamicModule, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';

/**
 * The app's Redis connection. Redis holds only what may be lost (rate-limit windows, quotas, caches):
 * nothing accepted by Workline depends on it surviving a restart or a FLUSHALL.
 */
@Injectable()
export class RedisService extends Redis implements OnApplicationShutdown {
  constructor(url: string) {
    super(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false });
    this.on('error', () => undefined);
  }

  /** Resolves to undefined when Redis answers PING, or the error text when it does not. */
  async probe(): Promise<string | undefined> {
    try {
      return (await this.ping()) === 'PONG' ? undefined : 'unexpected PING answer';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
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
