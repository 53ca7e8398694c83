import type { BlobStore } from '@workline/blob-store';
import type { OversightOptions } from '../oversight.options';

export const TEST_SECRETS_KEY = 'a-secrets-key-of-at-least-thirty-two-characters';
export const TEST_MEDIA_KEY_RETENTION_SECONDS = 3600;

/** Options as apps/oversight builds them, around the given blob store. */
export const testOversightOptions = (blobs: BlobStore): OversightOptions => ({
  publicUrl: 'https://workline.test',
  secretsKey: TEST_SECRETS_KEY,
  blobs,
  leaseSeconds: 300,
  mediaKeyRetentionSeconds: TEST_MEDIA_KEY_RETENTION_SECONDS,
  uploadSweepSeconds: 60,
});
