import type { CallbackPolicy } from '@workline/callback-url';

/** What the platform-runs domain reads from the environment (the app's PlatformRunsEnv). */
export interface PlatformRunsSettings {
  /** Seals callback credentials (SecretBox, shared SECRETS_KEY). */
  secretsKey: string;
  /** The SSRF guard of callback URLs (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_DNS_SERVERS). */
  callbackPolicy: CallbackPolicy;
  /** How long a worker holds a unit before it goes back to the queue. */
  unitLeaseSeconds: number;
  /** How long an instance holds the units it claimed to hand out from memory (UNIT_RESERVATION_SECONDS). */
  unitReservationSeconds: number;
  /** Units a claim reserves beyond the `next` requests waiting for it (UNIT_CLAIM_AHEAD). */
  unitClaimAhead: number;
  /** This instance (INSTANCE_ID): its reservations are named after it. */
  instanceId: string;
}

/** The time the work API goes by (leases, reservations); tests turn it forward instead of sleeping. */
export interface PlatformRunsClock {
  /** Milliseconds since the epoch. */
  now(): number;
}

export const PLATFORM_RUNS_CLOCK = Symbol('PLATFORM_RUNS_CLOCK');

export const systemClock: PlatformRunsClock = { now: () => Date.now() };

export const PLATFORM_RUNS_SETTINGS = Symbol('PLATFORM_RUNS_SETTINGS');
