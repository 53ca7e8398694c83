import type { CallbackPolicy } from '@workline/callback-url';

/** What the platform domain reads from the environment (platform-runs' PlatformRunsEnv). */
export interface PlatformSettings {
  /** Seals callback credentials (SecretBox, shared SECRETS_KEY). */
  secretsKey: string;
  /** The SSRF guard of callback URLs (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_DNS_SERVERS). */
  callbackPolicy: CallbackPolicy;
  /** How long a worker holds a unit before it goes back to the queue. */
  unitLeaseSeconds: number;
}

export const PLATFORM_SETTINGS = Symbol('PLATFORM_SETTINGS');

/** The outbox source of platform-runs: its relay publishes the rows written with it. */
export const PLATFORM_OUTBOX_SOURCE = 'platform-runs';
