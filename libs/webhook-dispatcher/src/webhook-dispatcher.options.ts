import type { CallbackPolicy } from '@workline/callback-url';

/** Injection token of WebhookDispatcherOptions. */
export const WEBHOOK_DISPATCHER_OPTIONS = Symbol('WEBHOOK_DISPATCHER_OPTIONS');

/** How this dispatcher instance delivers; built from its environment (WebhookDispatcherEnv). */
export interface WebhookDispatcherOptions {
  /** Outbox source of this app's events (the app's name). */
  source: string;
  /** Recorded on each attempt, for operators. */
  instanceId: string;
  /** Opens sealed secrets (SECRETS_KEY). */
  secretsKey: string;
  /** Scales the retry waits (1 h, 2 h, 4 h, 8 h at the default of one hour). */
  retryBaseMs: number;
  /** The SSRF guard checked before every attempt (WEBHOOK_ALLOW_PRIVATE, WEBHOOK_DNS_SERVERS). */
  callbackPolicy: CallbackPolicy;
  /** How often an idle scheduler looks for due deliveries. */
  pollMs: number;
  /** Attempts one instance makes at once. */
  concurrency: number;
  /** Attempts one instance makes at once to one origin (scheme, host and port). */
  originConcurrency: number;
  /** How long a claim keeps other instances off a delivery; longer than an attempt can take. */
  leaseMs: number;
}
