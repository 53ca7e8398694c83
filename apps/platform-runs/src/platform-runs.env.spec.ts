import 'reflect-metadata';
import { loadEnv } from '@workline/config';
import type { KafkaSettings } from '@workline/messaging';
import { PLATFORM_RUNS_SETTINGS } from '@workline/platform-runs';
import { providedValue } from '@workline/testing';
import { PlatformRunsEnv } from './platform-runs.env';
import { PlatformRunsModule } from './platform-runs.module';

const settings: KafkaSettings = {
  brokers: ['127.0.0.1:9092'],
  app: 'platform-runs',
  instanceId: 'platform-runs-3',
  sessionTimeoutMs: 30_000,
};

describe('the platform-runs service’s settings', () => {
  it('defaults to a 15 min unit lease, 256 KiB inline replies, claims held 10 s and 16 units claimed ahead', () => {
    const env = loadEnv(PlatformRunsEnv, {});
    expect([env.UNIT_LEASE_SECONDS, env.RPC_REPLY_INLINE_BYTES, env.UNIT_RESERVATION_SECONDS, env.UNIT_CLAIM_AHEAD]).toEqual([
      900,
      256 * 1024,
      10,
      16,
    ]);
  });

  it('refuses each setting outside its bounds, naming it and its rule', () => {
    expect(() => loadEnv(PlatformRunsEnv, { UNIT_LEASE_SECONDS: '4' })).toThrow(
      'UNIT_LEASE_SECONDS: UNIT_LEASE_SECONDS must not be less than 5',
    );
    expect(() => loadEnv(PlatformRunsEnv, { RPC_REPLY_INLINE_BYTES: '1023' })).toThrow('RPC_REPLY_INLINE_BYTES must not be less than 1024');
    expect(() => loadEnv(PlatformRunsEnv, { UNIT_RESERVATION_SECONDS: '301' })).toThrow(
      'UNIT_RESERVATION_SECONDS must not be greater than 300',
    );
    expect(() => loadEnv(PlatformRunsEnv, { UNIT_CLAIM_AHEAD: '1001' })).toThrow('UNIT_CLAIM_AHEAD must not be greater than 1000');
    // Claiming exactly the requests waiting is allowed.
    expect(loadEnv(PlatformRunsEnv, { UNIT_CLAIM_AHEAD: '0' }).UNIT_CLAIM_AHEAD).toBe(0);
  });

  it('gives the platform-runs domain its settings, with the Kafka instance id (reservations are per instance)', () => {
    const env = loadEnv(PlatformRunsEnv, {
      SECRETS_KEY: 'a-secrets-key-of-at-least-thirty-two-characters',
      WEBHOOK_ALLOW_PRIVATE: '10.20.0.0/16',
      UNIT_LEASE_SECONDS: '60',
      UNIT_RESERVATION_SECONDS: '5',
      UNIT_CLAIM_AHEAD: '4',
      INSTANCE_ID: 'not-the-one-used',
    });
    expect(providedValue(PlatformRunsModule.register(env, settings), PLATFORM_RUNS_SETTINGS)).toEqual({
      secretsKey: 'a-secrets-key-of-at-least-thirty-two-characters',
      callbackPolicy: { allowPrivate: false, allowedRanges: ['10.20.0.0/16'], dnsServers: [] },
      unitLeaseSeconds: 60,
      unitReservationSeconds: 5,
      unitClaimAhead: 4,
      instanceId: 'platform-runs-3',
    });
  });
});
