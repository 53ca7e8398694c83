import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Presigned URLs served by the gateway (media uploads, CSV uploads, media downloads for workers):
 * `<path>?expires=<unix seconds>&signature=<hex HMAC-SHA256(key, method + "\n" + path + "\n" + expires)>`.
 * The method is part of what is signed, so an upload URL cannot be used to read and vice versa.
 */
export type SignedUrlCheck = { ok: true } | { ok: false; reason: 'missing' | 'expired' | 'tampered' };

const mac = (key: string, method: string, path: string, expires: number) =>
  createHmac('sha256', key).update(`${method.toUpperCase()}\n${path}\n${expires}`).digest('hex');

/**
 * When a signed URL valid for `ttlSeconds` from `now` expires: on a whole second, since its `expires`
 * parameter holds no more, so the `expires_at` answered beside the URL is exactly when it stops working.
 */
export const signedUrlExpiry = (ttlSeconds: number, now = Date.now()): Date => new Date(Math.floor(now / 1000) * 1000 + ttlSeconds * 1000);

export function signPath(key: string, method: string, path: string, expiresAt: Date): string {
  const expires = Math.floor(expiresAt.getTime() / 1000);
  return `${path}?expires=${expires}&signature=${mac(key, method, path, expires)}`;
}

export function checkSignedPath(
  key: string,
  method: string,
  path: string,
  query: { expires?: unknown; signature?: unknown },
  now = new Date(),
): SignedUrlCheck {
  const { expires, signature } = query;
  if (typeof expires !== 'string' || typeof signature !== 'string' || !/^\d+$/.test(expires) || !/^[0-9a-f]{64}$/.test(signature)) {
    return { ok: false, reason: 'missing' };
  }
  const expected = Buffer.from(mac(key, method, path, Number(expires)), 'hex');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) return { ok: false, reason: 'tampered' };
  if (Number(expires) * 1000 < now.getTime()) return { ok: false, reason: 'expired' };
  return { ok: true };
}

/**
 * The key presigned URLs are signed with, derived from SECRETS_KEY (shared by the apps) so that one app
 * can sign a URL another serves, without the raw SECRETS_KEY ever being used as an HMAC key itself.
 */
export function urlSigningKey(secretsKey: string): string {
  return createHmac('sha256', secretsKey).update('workline/presigned-urls/v1').digest('hex');
}
