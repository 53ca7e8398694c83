import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

/** HTTP header a request id arrives in and is echoed back in. */
export const REQUEST_ID_HTTP_HEADER = 'X-Request-Id';
/** Kafka message header that carries the request id through RPC requests, events and the outbox. */
export const REQUEST_ID_KAFKA_HEADER = 'request-id';

/** What a caller may send as X-Request-Id: 1-128 of letters, digits and `._:-` (anything else is replaced). */
const WELL_FORMED = /^[A-Za-z0-9._:-]{1,128}$/;

export const isWellFormedRequestId = (value: unknown): value is string => typeof value === 'string' && WELL_FORMED.test(value);

/** The caller's id when well formed, else a fresh UUID. */
export const requestIdFrom = (incoming: unknown): string => (isWellFormedRequestId(incoming) ? incoming : randomUUID());

interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/** Runs `work` with `requestId` as the current request id (no id: runs it outside any request). */
export function runWithRequestId<T>(requestId: string | undefined, work: () => T): T {
  return requestId ? storage.run({ requestId }, work) : storage.exit(work);
}

/** The id of the request whose work is running now, if any. */
export const currentRequestId = (): string | undefined => storage.getStore()?.requestId;

/** `headers` plus the current request id under the Kafka header, unless it already carries one. */
export function withRequestIdHeader(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  const requestId = currentRequestId();
  if (!requestId || headers?.[REQUEST_ID_KAFKA_HEADER]) return headers;
  return { ...(headers ?? {}), [REQUEST_ID_KAFKA_HEADER]: requestId };
}
