import type { BlobStore } from '@workline/blob-store';

/** What the oversight domain needs from its environment (apps/oversight builds it from OversightEnv). */
export interface OversightOptions {
  /** The gateway's public base URL: worker media URLs point there. */
  publicUrl: string;
  /** SECRETS_KEY: seals callback credentials and derives the presigned-URL key. */
  secretsKey: string;
  /** The blob store holding uploaded media (the gateway writes it). */
  blobs: BlobStore;
  /** How long a worker holds a task before it goes back to the queue. */
  leaseSeconds: number;
  /** How long after its upload URL expired a media_key still creates tasks; then unused media is deleted. */
  mediaKeyRetentionSeconds: number;
  /** How often the sweep of expired upload grants runs. */
  uploadSweepSeconds: number;
}

export const OVERSIGHT_OPTIONS = Symbol('OVERSIGHT_OPTIONS');
