import { type DynamicModule, Module } from '@nestjs/common';
import { type BaseEnv, loadEnvOrExit } from '@workline/config';
import { DbModule } from '@workline/db';
import { KafkaModule, type KafkaSettings } from '@workline/kafka';
import {
  LinesService,
  PLATFORM_CLOCK,
  PLATFORM_SETTINGS,
  type PlatformSettings,
  RunsService,
  systemClock,
  UnitLeaseMetrics,
  UnitWorkService,
} from '@workline/platform';
import { LinesRpcController } from './lines.rpc-controller';
import { PlatformRunsEnv } from './platform-runs.env';
import { RunAbortEventController } from './run-abort.event-controller';
import { RunsRpcController } from './runs.rpc-controller';
import { UnitWorkRpcController } from './unit-work.rpc-controller';

@Module({})
export class PlatformRunsModule {
  static register(env: BaseEnv, settings: KafkaSettings): DynamicModule {
    const own = loadEnvOrExit(PlatformRunsEnv, 'platform-runs');
    const platform: PlatformSettings = {
      secretsKey: env.secretsKey,
      callbackPolicy: env.callbackPolicy,
      unitLeaseSeconds: own.UNIT_LEASE_SECONDS,
      unitReservationSeconds: own.UNIT_RESERVATION_SECONDS,
      unitClaimAhead: own.UNIT_CLAIM_AHEAD,
      instanceId: settings.instanceId,
    };
    return {
      module: PlatformRunsModule,
      imports: [DbModule.forRoot(env.DATABASE_URL, env.DATABASE_POOL_SIZE), KafkaModule.forRoot({ settings, outbox: true, serveHealth: true })],
      controllers: [LinesRpcController, RunsRpcController, UnitWorkRpcController, RunAbortEventController],
      providers: [{ provide: PLATFORM_SETTINGS, useValue: platform }, { provide: PLATFORM_CLOCK, useValue: systemClock }, LinesService, RunsService, UnitWorkService, UnitLeaseMetrics],
    };
  }
}
