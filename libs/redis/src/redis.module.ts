import { type DynamicModule, Injectable, Module, type OnApplicationShutdown } from '@nestjs/common';
import { errorMessage } from '@workline/contracts';
import { AppMetrics } from '@workline/observability';
import Redis from 'ioredis';
import type { Counter } from 'prom-client';

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
  /**
   * Round trips asked of Redis so far: a pipeline (its commands go out in one write, and their replies are
   * waited for together) or a command sent alone. The connection's own commands (its ready check) count too.
   */
  roundTrips = 0;
  /** What was counted: a pipeline by the stream its commands are written through, a command alone by itself. */
  private readonly counted = new WeakSet<object>();
  private readonly sent?: Counter;

  constructor(url: string, commandTimeoutMs = REDIS_COMMAND_TIMEOUT_MS, metrics?: AppMetrics) {
    super(url, { maxRetriesPerRequest: 2, enableOfflineQueue: true, lazyConnect: false, commandTimeout: commandTimeoutMs });
    this.on('error', () => undefined);
    this.sent = metrics?.counter(
      'redis_round_trips_total',
      "Round trips to the app's Redis: pipelines (one write for all their commands) and commands sent alone",
      [],
    );
  }

  /**
   * Every command passes here on its way to the socket, a pipeline's one by one with the pipeline's stream;
   * a command held while the connection was down passes again when it is sent, and is not counted twice.
   */
  override sendCommand(...[command, stream]: Parameters<Redis['sendCommand']>): unknown {
    const roundTrip: object = stream ?? command;
    if (!this.counted.has(roundTrip)) {
      this.counted.add(roundTrip);
      this.roundTrips++;
      this.sent?.inc();
    }
    return super.sendCommand(command, stream);
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
      providers: [
        {
          provide: RedisService,
          inject: [{ token: AppMetrics, optional: true }],
          useFactory: (metrics?: AppMetrics) => new RedisService(url, REDIS_COMMAND_TIMEOUT_MS, metrics),
        },
      ],
      exports: [RedisService],
    };
  }
}
