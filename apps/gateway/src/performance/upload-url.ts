import { sha256 } from '@workline/secrets';
import type { GatewayEnv } from '../gateway.env';

/** How long a CSV upload URL stays valid. */
export const CSV_UPLOAD_URL_TTL_SECONDS = 3600;

/** Presigned CSV uploads (a StreamedBody route, like media uploads under /uploads/media/). */
export const CSV_UPLOAD_PREFIX = '/uploads/performance/';

export const csvUploadPath = (uploadId: string) => `${CSV_UPLOAD_PREFIX}${uploadId}`;

/** A key of its own for presigned URLs, derived from SECRETS_KEY (which every instance shares). */
export const uploadSigningKey = (env: GatewayEnv) => sha256(`presigned-url\n${env.secretsKey}`);
