import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * X-SVC-Signature: `t=<unix seconds>;v1=<hex HMAC-SHA256(secret, t + "." + raw body)>`.
 * Sign and verify the exact bytes that travel: never a re-serialised copy of the body.
 */
export const SIGNATURE_HEADER = 'X-SVC-Signature';

export type RawBody = string | Buffer;

function digest(secret: string, timestamp: number, rawBody: RawBody): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest('hex');
}

/** Returns the header value for `rawBody`, signed at `timestamp` (unix seconds, default now). */
export function sign(rawBody: RawBody, secret: string, timestamp = Math.floor(Date.now() / 1000)): string {
  return `t=${timestamp};v1=${digest(secret, timestamp, rawBody)}`;
}

export interface VerifyOptions {
  /** Reject signatures older (or further in the future) than this. Default 300 s. */
  toleranceSeconds?: number;
  /** Current time in unix seconds (for tests). */
  now?: number;
}

export type VerifyFailure = 'malformed' | 'expired' | 'mismatch';

export interface VerifyResult {
  ok: boolean;
  reason?: VerifyFailure;
  timestamp?: number;
}

/** Parses `t=...;v1=...`; elements are split on `;`, then on the first `=`. */
export function parseSignatureHeader(header: string | undefined | null): { t?: number; v1?: string } {
  const out: { t?: number; v1?: string } = {};
  for (const element of (header ?? '').split(';')) {
    const at = element.indexOf('=');
    if (at < 0) continue;
    const key = element.slice(0, at).trim();
    const value = element.slice(at + 1).trim();
    if (key === 't' && /^\d+$/.test(value)) out.t = Number(value);
    if (key === 'v1' && /^[0-9a-f]+$/i.test(value)) out.v1 = value.toLowerCase();
  }
  return out;
}

/** Checks a signature header against the raw request body, in constant time. */
export function verify(header: string | undefined | null, rawBody: RawBody, secret: string, options: VerifyOptions = {}): VerifyResult {
  const { t, v1 } = parseSignatureHeader(header);
  if (t === undefined || v1 === undefined) return { ok: false, reason: 'malformed' };
  const now = options.now ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - t) > (options.toleranceSeconds ?? 300)) return { ok: false, reason: 'expired', timestamp: t };
  const expected = Buffer.from(digest(secret, t, rawBody), 'hex');
  const given = Buffer.from(v1, 'hex');
  const ok = given.length === expected.length && timingSafeEqual(given, expected);
  return ok ? { ok, timestamp: t } : { ok, reason: 'mismatch', timestamp: t };
}

/** Result events are spelt both ways in the spec's samples; receivers should accept either. */
export const RESULT_EVENT_TYPES = ['task.result_available', 'task.resultavailable'] as const;

export function isResultEventType(eventType: string): boolean {
  return (RESULT_EVENT_TYPES as readonly string[]).includes(eventType);
}
