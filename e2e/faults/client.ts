import { http, type HttpResult, type RetryOutcome, withRetries } from '@workline/testing';

/** Clients give up on one request after this long (a real client's patience; recovery takes seconds). */
export const PATIENCE_MS = 180_000;
/** A client's wait for one answer before it tries again. */
const REQUEST_TIMEOUT_MS = 30_000;

export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A worker's credentials (the work API's headers). */
export type Worker = Record<string, string>;

/** Where one request goes: the gateway clients use (the fleet's balancer), or one gateway, waited for before each attempt. */
export interface Route {
  url: string;
  /** Resolves once the gateway may be sent to (e.g. the balancer would send there). */
  ready?: () => Promise<void>;
}

/**
 * The fault scenarios' clients: they send to the gateway the scenario gives them (the fleet's balancer) and
 * retry like real ones, on a connection error, a timeout (30 s) or a 5xx, with the same request (withRetries:
 * 250 ms doubling to 2 s, for up to 3 minutes; each failed attempt is recorded, so the rolling restart can
 * count them). Every answer a client did not expect is kept in {@link problems}: a scenario passes only with
 * none.
 */
export class FaultClient {
  readonly problems: string[] = [];

  constructor(private readonly gateway: () => string) {}

  /** The gateway clients send to now. */
  get url(): string {
    return this.gateway();
  }

  send<T = unknown>(
    method: string,
    path: string,
    headers: Record<string, string>,
    body?: unknown,
    route?: Route,
  ): Promise<RetryOutcome<T>> {
    return withRetries(async () => {
      await route?.ready?.();
      return http<T>(method, `${route?.url ?? this.gateway()}${path}`, { headers, body, timeoutMs: REQUEST_TIMEOUT_MS });
    }, Date.now() + PATIENCE_MS);
  }

  /**
   * A PUT of raw bytes to a signed upload URL, sent to the gateway clients use: the signature covers the
   * path and the expiry, not the host.
   */
  put(signedUrl: string, contentType: string, body: Buffer | string, timeoutMs = REQUEST_TIMEOUT_MS): Promise<RetryOutcome<undefined>> {
    const target = new URL(signedUrl);
    return withRetries(async () => {
      const response = await fetch(`${this.gateway()}${target.pathname}${target.search}`, {
        method: 'PUT',
        headers: { 'content-type': contentType },
        body,
        signal: AbortSignal.timeout(timeoutMs),
      });
      return { status: response.status, headers: response.headers, body: undefined, text: await response.text() };
    }, Date.now() + PATIENCE_MS);
  }

  /** Records an answer the client did not expect (or none at all: it gave up). */
  unexpected(what: string, result?: HttpResult): void {
    this.problems.push(`${what}: ${result ? `${result.status} ${result.text.slice(0, 200)}` : 'gave up after retrying'}`);
  }

  /**
   * A worker leases its next unit or task; undefined (after a pause when there was nothing to do) when none
   * was leased. A `next` that needed retries may have leased one whose answer was lost: it is counted in
   * `counter.leasesLost` (the lease ends after UNIT/TASK_LEASE_SECONDS and the work comes back).
   */
  async nextAssignment<T>(worker: Worker, body: object, counter: { leasesLost: number }): Promise<T | undefined> {
    const next = await this.send<T>('POST', '/workforce/v1/assignments/next', worker, body);
    if (next.attempts > 1) counter.leasesLost++;
    if (next.result?.status === 200) return next.result.body;
    if (next.result?.status === 204) await pause(500);
    else this.unexpected(`next ${JSON.stringify(body)}`, next.result);
    return undefined;
  }

  /** A worker completes (or flags) a leased unit or task. */
  closeAssignment(worker: Worker, assignment: string, flag: boolean, body: object): Promise<RetryOutcome<unknown>> {
    return this.send('POST', `/workforce/v1/assignments/${assignment}/${flag ? 'flag' : 'complete'}`, worker, body);
  }
}
