import { type CallbackPolicy, CallbackUrlError, resolvePublicAddresses } from '@workline/callback-url';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';

export const ATTEMPT_TIMEOUT_MS = 5_000;
export const RESPONSE_EXCERPT_BYTES = 1024;

/** Where an attempt connects: the URL, and the one address that passed the SSRF check. */
export interface DeliveryTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * The SSRF check at delivery time: resolves the URL's host now (DNS may have changed since the task was
 * created) and refuses any non-public address the policy does not allow. The attempt then connects to the
 * address checked here, never to a second lookup (DNS rebinding).
 */
export async function resolveDeliveryTarget(rawUrl: string, policy: CallbackPolicy): Promise<DeliveryTarget> {
  const url = new URL(rawUrl);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CallbackUrlError('callback_url must use http or https');
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const [address] = await resolvePublicAddresses(host, policy);
  return { url, address, family: isIP(address) === 6 ? 6 : 4 };
}

export interface AttemptRequest {
  target: DeliveryTarget;
  body: string;
  headers: Record<string, string>;
  timeoutMs?: number;
}

export interface AttemptResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  retryAfter: string | null;
}

/** Answers every lookup with the checked address, in the shape the caller asked for (one or all). */
const pinnedLookup =
  (address: string, family: 4 | 6): LookupFunction =>
  (_hostname, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

/** Keeps at most RESPONSE_EXCERPT_BYTES of the answer, cut on a character boundary. */
function excerptOf(chunks: Buffer[]): string | null {
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  if (!bytes.length) return null;
  let text = bytes.toString('utf8');
  while (Buffer.byteLength(text) > RESPONSE_EXCERPT_BYTES) text = text.slice(0, -1);
  return text.replace(/\uFFFD+$/, '');
}

/**
 * One POST of the exact bytes in `body`. Never throws: the outcome (status, or the error that stood in
 * for one) is the result. The whole exchange (connect, status, the first KB of the answer) must finish
 * within the timeout; redirects are not followed.
 */
export function postOnce({ target, body, headers, timeoutMs = ATTEMPT_TIMEOUT_MS }: AttemptRequest): Promise<AttemptResult> {
  const started = Date.now();
  const payload = Buffer.from(body, 'utf8');
  return new Promise<AttemptResult>((resolve) => {
    let settled = false;
    let response: IncomingMessage | undefined;
    const chunks: Buffer[] = [];
    let received = 0;
    const finish = (partial: Partial<AttemptResult>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({
        statusCode: response?.statusCode ?? null,
        durationMs: Date.now() - started,
        error: null,
        responseExcerpt: excerptOf(chunks),
        retryAfter: (response?.headers['retry-after'] as string | undefined) ?? null,
        ...partial,
      });
      req.destroy();
    };
    const send = target.url.protocol === 'https:' ? httpsRequest : httpRequest;
    const req = send(target.url, {
      method: 'POST',
      headers: { ...headers, 'Content-Length': String(payload.length) },
      lookup: pinnedLookup(target.address, target.family),
      agent: false,
    });
    const timer = setTimeout(() => {
      // The status counts when it arrived in time; only a missing status makes this a timeout.
      if (response) finish({});
      else finish({ statusCode: null, error: `timed out after ${timeoutMs} ms` });
    }, timeoutMs);
    req.on('response', (res) => {
      response = res;
      res.on('data', (chunk: Buffer) => {
        if (received < RESPONSE_EXCERPT_BYTES) chunks.push(chunk);
        received += chunk.length;
        if (received >= RESPONSE_EXCERPT_BYTES) finish({});
      });
      res.on('end', () => finish({}));
      res.on('error', () => finish({}));
    });
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (response) finish({});
      else finish({ statusCode: null, error: error.code ? `${error.code}: ${error.message}` : error.message });
    });
    req.end(payload);
  });
}
