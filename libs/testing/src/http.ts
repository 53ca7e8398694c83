import { Agent } from 'undici';
import { testStack } from './stack';

/**
 * Idle connections are dropped after 10 s, well before the gateway drops them (65 s, docs/decisions.md):
 * a client that keeps them as long as the server says races the server's close, and a request sent on a
 * connection the server is closing fails with "other side closed" (seen after a 65 s suite).
 */
export const testConnections = new Agent({ keepAliveTimeout: 10_000, keepAliveMaxTimeout: 10_000 });

export interface HttpResult<T = unknown> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpOptions {
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string is sent as it is. */
  body?: unknown;
  contentType?: string;
  /** Abort (the promise rejects) when no answer came within this many ms. */
  timeoutMs?: number;
}

/**
 * A small HTTP client over fetch for tests: never throws on a status, parses JSON when it can. Requests of a
 * valid shape go through the typed client (./api.ts); this one sends what it cannot (broken JSON, wrong types,
 * other content types, unknown paths: docs/decisions.md, "OpenAPI from the code, and a typed client").
 */
export async function http<T = unknown>(method: string, path: string, options: HttpOptions = {}): Promise<HttpResult<T>> {
  const url = path.startsWith('http') ? path : `${testStack().gatewayUrl}${path}`;
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  let body: string | undefined;
  if (options.body !== undefined) {
    body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
    headers['content-type'] = options.contentType ?? 'application/json';
  }
  const response = await fetch(url, {
    method,
    headers,
    body,
    signal: options.timeoutMs ? AbortSignal.timeout(options.timeoutMs) : undefined,
    dispatcher: testConnections,
  } as RequestInit);
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON: keep the text */
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}

export const adminHeaders = () => ({ authorization: `Bearer ${testStack().adminToken}` });

/**
 * POST to the admin API with the test admin token; fails the test unless the answer is 201. For the suites not
 * on the typed client (the fault suites, the apps' own); the e2e suites use adminClient() (./api.ts).
 */
export async function adminCreate<T = Record<string, unknown>>(path: string, body: unknown): Promise<T> {
  const result = await http<T>('POST', `/admin/v1${path}`, { headers: adminHeaders(), body });
  if (result.status !== 201) throw new Error(`POST /admin/v1${path} answered ${result.status}: ${result.text}`);
  return result.body;
}
