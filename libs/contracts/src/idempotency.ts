import { createHash } from 'node:crypto';
import { DomainError, ErrorCode } from './errors';

/**
 * Safe retries of creation requests (docs/decisions.md, "Idempotent creation"): a client sends an
 * `Idempotency-Key`; the service stores it, with a fingerprint of the request, beside the row it creates.
 */
export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';

/** Set to `true` on an answer that replays an earlier creation with the same key. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** 1 to 255 printable ASCII characters (0x20-0x7E). */
const KEY_PATTERN = new RegExp(`^[\\x20-\\x7e]{1,${IDEMPOTENCY_KEY_MAX_LENGTH}}$`);

/**
 * A refused key: 422 `Invalid request: ...` naming the header, or with the platform API v3's code
 * (102, "Data is invalid: ...") when `v3Code` is given.
 */
function keyError(message: string, v3Code?: number): DomainError {
  return v3Code === undefined
    ? new DomainError(ErrorCode.Validation, `Invalid request: ${message}`, [{ field: IDEMPOTENCY_KEY_HEADER, message }])
    : new DomainError(ErrorCode.Validation, `Data is invalid: ${message}`, undefined, v3Code);
}

/** The header's value as sent (undefined when absent); a malformed one is a 422 naming the header. */
export function parseIdempotencyKey(value: string | string[] | undefined, v3Code?: number): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string' && KEY_PATTERN.test(value)) return value;
  throw keyError(`${IDEMPOTENCY_KEY_HEADER} header must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} printable ASCII characters`, v3Code);
}

/** JSON with object keys sorted at every depth: equal values give equal text whatever the key order. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    item !== null && typeof item === 'object' && !Array.isArray(item)
      ? Object.fromEntries(
          Object.keys(item)
            .sort()
            .map((key) => [key, (item as Record<string, unknown>)[key]]),
        )
      : item,
  );
}

/** SHA-256 (hex) of the canonical JSON of a request: what is compared when a key comes back. */
export function requestFingerprint(value: unknown): string {
  return createHash('sha256')
    .update(canonicalJson(value) ?? 'undefined')
    .digest('hex');
}

/** The same key sent again with another request: 422, nothing is created or changed. */
export function idempotencyKeyReused(key: string, v3Code?: number): DomainError {
  return keyError(
    `${IDEMPOTENCY_KEY_HEADER} ${JSON.stringify(key)} was already used with another request: send the same request ` +
      `to get its answer again, or a new key for a new request`,
    v3Code,
  );
}
