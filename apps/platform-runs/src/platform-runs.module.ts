import { type DynamicModule, Logger, Module } from '@nestjs/common';
import { BlobReplies, BlobStoreEnv, createBlobStore } from '@workline/blob-store';
import { loadEnvOrExit } from '@workline/config';
import { ServiceName } from '@workline/contracts';
import type { KafkaSettings } from '@workline/messaging';
import {
  LinesRepository,
  LinesService,
  PLATFORM_RUNS_CLOCK,
  PLATFORM_RUNS_SETTINGS,
  type PlatformRunsSettings,
  RunsRepository,
  RunsService,
  systemClock,
  UnitLeaseMetrics,
  UnitWorkRepository,
  UnitWorkService,
} from '@workline/platform-runs';
import { LinesRpcController } from './lines.rpc-controller';
import type { PlatformRunsEnv } from './platform-runs.env';
import { RunAbortEventController } from './run-abort.event-controller';
import { RunsRpcController } from './runs.rpc-controller';
import { UnitWorkRpcController } from './unit-work.rpc-controller';

@Module({})
export class PlatformRunsModule {
  static register(env: PlatformRunsEnv, settings: KafkaSettings): DynamicModule {
    const domain: PlatformRunsSettings = {
      secretsKey: env.secretsKey,
      callbackPolicy: env.callbackPolicy,
      unitLeaseSeconds: env.UNIT_LEASE_SECONDS,
      unitReservationSeconds: env.UNIT_RESERVATION_SECONDS,
      unitClaimAhead: env.UNIT_CLAIM_AHEAD,
      instanceId: settings.instanceId,
    };
    const blobs = createBlobStore(loadEnvOrExit(BlobStoreEnv, ServiceName.PlatformRuns));
    const logger = new Logger(BlobReplies.name);
    // An answer is read within the RPC timeout or never: what is left after ten minutes is swept.
    const replies = new BlobReplies(blobs, {
      service: ServiceName.PlatformRuns,
      inlineBytes: env.RPC_REPLY_INLINE_BYTES,
      keepSeconds: 600,
      sweepSeconds: 300,
      warn: (m) => logger.warn(m),
    });
    return {
      module: PlatformRunsModule,
      controllers: [LinesRpcController, RunsRpcController, UnitWorkRpcController, RunAbortEventController],
      providers: [
        { provide: PLATFORM_RUNS_SETTINGS, useValue: domain },
        { provide: BlobReplies, useValue: replies },
        { provide: PLATFORM_RUNS_CLOCK, useValue: systemClock },
        LinesRepository,
        LinesService,
        RunsRepository,
        RunsService,
        UnitWorkRepository,
        UnitWorkService,
        UnitLeaseMetrics,
      ],
    };
  }
}
