/**
 * When a delivery is tried again. The spec: up to 4 retries with exponentially growing waits of 1 h, 2 h,
 * 4 h; it lists three waits for four retries, so the fourth continues the doubling: 8 h. `baseMs`
 * (WEBHOOK_RETRY_BASE_MS, default one hour) scales all of them.
 */
export const MAX_RETRIES = 4;
export const MAX_ATTEMPTS = MAX_RETRIES + 1;
export const DEFAULT_RETRY_BASE_MS = 3_600_000;
/**
 * Up to +10 %: spreads the retries of deliveries that failed together (a receiver outage). Only ever added,
 * so that no wait is shorter than the spec's 1 h, 2 h, 4 h.
 */
export const JITTER = 0.1;
/** A Retry-After longer than this is capped: a receiver must not park a delivery for days. */
export const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** A 2xx is a receipt. Anything else, a redirect included (redirects are not followed), is a failure. */
export const isSuccessStatus = (status: number | null | undefined): boolean =>
  status !== null && status !== undefined && status >= 200 && status <= 299;

/** The wait before retry `retry` (1-based) without jitter: base, 2 × base, 4 × base, 8 × base. */
export const scheduledWaitMs = (retry: number, baseMs: number): number => baseMs * 2 ** (retry - 1);

/**
 * Parses Retry-After (delta seconds or an HTTP date) into milliseconds from `now`; undefined when absent
 * or unreadable. Capped at MAX_RETRY_AFTER_MS.
 */
export function parseRetryAfterMs(header: string | undefined | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  let ms: number;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else {
    // An HTTP date names its weekday and month; a bare number in another shape is not one.
    const at = /[a-z]{3}/i.test(text) ? Date.parse(text) : NaN;
    if (Number.isNaN(at)) return undefined;
    ms = at - now;
  }
  return Math.min(Math.max(ms, 0), MAX_RETRY_AFTER_MS);
}

export interface FailureInput {
  /** Failed attempts so far in this round, this one included (1 after the first attempt failed). */
  failures: number;
  baseMs: number;
  statusCode: number | null;
  retryAfterMs?: number;
  /** A number in [0, 1): Math.random in production, fixed in tests. */
  random: number;
}

export type FailureDecision = { kind: 'retry'; waitMs: number; retry: number } | { kind: 'dead' };

/** What follows a failed attempt: the next retry and its wait, or dead after the last retry. */
export function afterFailure({ failures, baseMs, statusCode, retryAfterMs, random }: FailureInput): FailureDecision {
  if (failures >= MAX_ATTEMPTS) return { kind: 'dead' };
  const retry = failures;
  const jittered = Math.round(scheduledWaitMs(retry, baseMs) * (1 + JITTER * random));
  // 429 and 503 may say how long the receiver needs; honour it when it is longer than our own wait.
  const honoured = (statusCode === 429 || statusCode === 503) && retryAfterMs !== undefined ? Math.max(jittered, retryAfterMs) : jittered;
  return { kind: 'retry', waitMs: honoured, retry };
}
