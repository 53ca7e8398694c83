import { type DynamicModule, Module, type Provider } from '@nestjs/common';
import { DbPool } from '@workline/db';
import { AppMetrics } from '@workline/observability';
import { Inbox, InboxPruner } from './inbox';
import { KAFKA_SETTINGS, type KafkaSettings } from './kafka.settings';
import { OutboxRelay } from './outbox-relay';
import { KafkaProducer } from './producer';
import { KafkaRpcClient } from './rpc-client';

export interface KafkaModuleOptions {
  settings: KafkaSettings;
  /**
   * Relay this app's outbox rows (written with `source` = the app's name), keeping published ones for
   * `retentionHours` (OUTBOX_RETENTION_HOURS; 0: for ever).
   */
  outbox?: { retentionHours: number };
  /** Make request-reply calls to services (the gateway), waiting at most this long by default. */
  rpcClientTimeoutMs?: number;
}

/** Kafka plumbing for one app: producer, inbox (and its pruner), and optionally the outbox relay and the RPC client. */
@Module({})
export class KafkaModule {
  static forRoot(options: KafkaModuleOptions): DynamicModule {
    const providers: Provider[] = [
      { provide: KAFKA_SETTINGS, useValue: options.settings },
      { provide: KafkaProducer, useFactory: () => new KafkaProducer(options.settings) },
      Inbox,
      InboxPruner,
    ];
    const { outbox } = options;
    if (outbox) {
      const retentionMs = outbox.retentionHours * 3_600_000;
      providers.push({
        provide: OutboxRelay,
        inject: [DbPool, KafkaProducer, { token: AppMetrics, optional: true }],
        useFactory: (db: DbPool, producer: KafkaProducer, metrics?: AppMetrics) =>
          new OutboxRelay(db, producer, { source: options.settings.app, metrics, retentionMs }),
      });
    }
    if (options.rpcClientTimeoutMs) {
      providers.push({
        provide: KafkaRpcClient,
        inject: [KafkaProducer],
        useFactory: (producer: KafkaProducer) => new KafkaRpcClient(options.settings, producer, options.rpcClientTimeoutMs!),
      });
    }
    return {
      module: KafkaModule,
      global: true,
      providers,
      exports: providers,
    };
  }
}
