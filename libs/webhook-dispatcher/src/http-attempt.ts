import { type CallbackPolicy, CallbackUrlError, resolvePublicAddresses } from '@workline/callback-url';
import { isIP, type LookupFunction } from 'node:net';
import { type buildConnector, Client, type Dispatcher } from 'undici';

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
  /**
   * Keep-alive connections to the target's origin and checked address (OriginConnections). Without it the
   * attempt opens a connection of its own and closes it after.
   */
  pool?: Dispatcher;
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
    if ((options as { all?: boolean }).all)
      (callback as (e: null, a: { address: string; family: number }[]) => void)(null, [{ address, family }]);
    else callback(null, address, family);
  };

/**
 * How connections to a target are opened: to the checked address whatever the host name would resolve to
 * now, the host still named in `Host` and as the TLS server name.
 */
export const pinnedConnector = (target: DeliveryTarget, timeoutMs: number): buildConnector.BuildOptions => ({
  lookup: pinnedLookup(target.address, target.family),
  timeout: timeoutMs,
});

/** Keeps at most RESPONSE_EXCERPT_BYTES of the answer, cut on a character boundary. */
function excerptOf(chunks: Buffer[]): string | null {
  const bytes = Buffer.concat(chunks).subarray(0, RESPONSE_EXCERPT_BYTES);
  if (!bytes.length) return null;
  let text = bytes.toString('utf8');
  while (Buffer.byteLength(text) > RESPONSE_EXCERPT_BYTES) text = text.slice(0, -1);
  return text.replace(/\uFFFD+$/, '');
}

/** An answer longer than the excerpt is read on (and dropped) up to this much, so its connection can serve again. */
const DRAIN_LIMIT_BYTES = 64 * 1024;
const DRAIN_TIMEOUT_MS = 1_000;

/** Reads the rest of an answer and drops it (so its connection serves again), or closes the connection past the limits. */
function drain(body: Dispatcher.ResponseData['body']): void {
  if (body.destroyed) return;
  let left = DRAIN_LIMIT_BYTES;
  const timer = setTimeout(() => body.destroy(), DRAIN_TIMEOUT_MS).unref();
  body
    .on('data', (chunk: Buffer) => {
      left -= chunk.length;
      if (left <= 0) body.destroy();
    })
    .on('close', () => clearTimeout(timer))
    .resume();
}

/** What the usual connection failures are called in an attempt's error, after their code. */
const CONNECTION_FAILURES: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'the receiver refused the connection',
  ECONNRESET: 'the connection was reset',
  EHOSTUNREACH: "the receiver's host is unreachable",
  ENETUNREACH: "the receiver's network is unreachable",
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection closed while the request was sent',
  UND_ERR_CONNECT_TIMEOUT: 'the connection was not made in time',
  UND_ERR_SOCKET: 'the connection closed before the answer',
};

const IPV4_ADDRESS = /\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b/g;
const WITHHELD = "the receiver's address";

/**
 * An attempt's error as its owner sees it (Delivery API, dead-letter events): what failed, never the
 * address the host name resolved to, which would map Workline's DNS for whoever chose the name (Node's own
 * texts carry it: `connect ECONNREFUSED 10.1.2.3:443`). The usual failures are named by their code and a
 * fixed phrase; any other text has the checked address, and every IPv4 address, taken out.
 */
export function attemptErrorText(error: NodeJS.ErrnoException, address: string): string {
  const known = error.code === undefined ? undefined : CONNECTION_FAILURES[error.code];
  if (known) return `${error.code}: ${known}`;
  const text = error.code ? `${error.code}: ${error.message}` : error.message;
  const checked = new RegExp(`\\[?${address.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\]?(?::\\d+)?`, 'gi');
  return text.replace(checked, WITHHELD).replace(IPV4_ADDRESS, WITHHELD);
}

/**
 * A kept-alive connection the receiver closed just as it was reused: the request never reached it (the
 * connection had answered before, and this request got no answer). It is sent once more, on a fresh
 * connection, within the same attempt.
 */
const closedWhenReused = (error: unknown) => {
  const failure = error as { code?: string; socket?: { bytesRead?: number } } | null;
  return failure?.code === 'UND_ERR_SOCKET' && (failure.socket?.bytesRead ?? 0) > 0;
};

/**
 * One POST of the exact bytes in `body`. Never throws: the outcome (status, or the error that stood in
 * for one) is the result. The whole exchange (connect, status, the first KB of the answer) must finish
 * within the timeout; redirects are not followed.
 */
export async function postOnce({ target, body, headers, timeoutMs = ATTEMPT_TIMEOUT_MS, pool }: AttemptRequest): Promise<AttemptResult> {
  const started = Date.now();
  const own = pool ? undefined : new Client(target.url.origin, { connect: pinnedConnector(target, timeoutMs), pipelining: 0 });
  const dispatcher = pool ?? own!;
  const payload = Buffer.from(body, 'utf8');
  const timeout = new AbortController();
  const timer = setTimeout(() => timeout.abort(), timeoutMs);
  try {
    for (let send = 1; ; send++) {
      const outcome = await exchange(dispatcher, target.url, payload, headers, timeout.signal);
      if ('response' in outcome) return { ...outcome.response, durationMs: Date.now() - started };
      if (timeout.signal.aborted)
        return {
          statusCode: null,
          durationMs: Date.now() - started,
          error: `timed out after ${timeoutMs} ms`,
          responseExcerpt: null,
          retryAfter: null,
        };
      if (send === 1 && closedWhenReused(outcome.error)) continue;
      return {
        statusCode: null,
        durationMs: Date.now() - started,
        error: attemptErrorText(outcome.error, target.address),
        responseExcerpt: null,
        retryAfter: null,
      };
    }
  } finally {
    clearTimeout(timer);
    own?.destroy().catch(() => undefined);
  }
}

type Exchange = { response: Omit<AttemptResult, 'durationMs'> } | { error: NodeJS.ErrnoException };

/** Sends the request and reads the status and the first KB of the answer, until `signal` (the attempt's timeout). */
async function exchange(
  dispatcher: Dispatcher,
  url: URL,
  payload: Buffer,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<Exchange> {
  let answer: Dispatcher.ResponseData;
  try {
    answer = await dispatcher.request({
      origin: url.origin,
      path: url.pathname + url.search,
      method: 'POST',
      headers,
      body: payload,
      signal,
    });
  } catch (error) {
    return { error: error as NodeJS.ErrnoException };
  }
  const chunks: Buffer[] = [];
  // Errors of the answer after its status (a reset, the timeout's abort) end the excerpt; they never escape.
  answer.body.on('error', () => undefined);
  const excerptComplete = await new Promise<boolean>((resolve) => {
    let received = 0;
    const finish = (complete: boolean) => {
      answer.body.off('data', onData).off('end', onEnd).off('error', onEnd);
      signal.removeEventListener('abort', onAbort);
      resolve(complete);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
      if (received >= RESPONSE_EXCERPT_BYTES) finish(false);
    };
    const onEnd = () => finish(true);
    // The status counts when it arrived in time; an answer still streaming then is cut where it is.
    const onAbort = () => finish(false);
    answer.body.on('data', onData).on('end', onEnd).on('error', onEnd);
    signal.addEventListener('abort', onAbort);
  });
  if (!excerptComplete) drain(answer.body);
  const retryAfter = answer.headers['retry-after'];
  return {
    response: {
      statusCode: answer.statusCode,
      error: null,
      responseExcerpt: excerptOf(chunks),
      retryAfter: (Array.isArray(retryAfter) ? retryAfter[0] : retryAfter) ?? null,
    },
  };
}
