import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request a LoopbackReceiver got: the raw bytes, as a webhook receiver must verify them. */
export interface ReceivedRequest {
  path: string;
  method: string;
  headers: IncomingHttpHeaders;
  rawBody: Buffer;
  receivedAt: number;
}

export interface ReceiverReply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Answer only after this long (a slow or hanging receiver). */
  delayMs?: number;
}

/** Decides the answer to the nth request (1-based) on a path. */
export type Responder = (request: ReceivedRequest, nth: number) => ReceiverReply;

const OK: Responder = () => ({ status: 200, body: 'ok' });

/**
 * A real HTTP receiver on loopback (127.0.0.1 unless told otherwise) for callback tests: records every
 * request per path and answers as the path's responder says (200 "ok" by default).
 */
export class LoopbackReceiver {
  readonly requests: ReceivedRequest[] = [];
  /** TCP connections accepted so far (keep-alive reuse shows as far fewer connections than requests). */
  connections = 0;
  private readonly responders = new Map<string, Responder>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private server?: Server;
  private port = 0;

  /** `host`: the loopback address to listen on (127.0.0.2 is loopback too, but not the test stack's allowed one). */
  constructor(private readonly host = '127.0.0.1') {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const path = (req.url ?? '/').split('?')[0];
        const request: ReceivedRequest = {
          path,
          method: req.method ?? '',
          headers: req.headers,
          rawBody: Buffer.concat(chunks),
          receivedAt: Date.now(),
        };
        this.requests.push(request);
        const nth = this.on(path).length;
        const reply: ReceiverReply = (this.responders.get(path) ?? OK)(request, nth);
        const send = () => {
          if (!res.destroyed) res.writeHead(reply.status, reply.headers).end(reply.body ?? '');
        };
        if (!reply.delayMs) return send();
        const timer = setTimeout(() => {
          this.timers.delete(timer);
          send();
        }, reply.delayMs);
        this.timers.add(timer);
      });
    });
    this.server.on('connection', () => this.connections++);
    await new Promise<void>((resolve) => this.server!.listen(0, this.host, resolve));
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  /** The URL of `path` on this receiver. */
  url(path: string): string {
    return `http://${this.host}:${this.port}${path}`;
  }

  respond(path: string, responder: Responder): void {
    this.responders.set(path, responder);
  }

  /** Requests received on `path`, oldest first. */
  on(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    this.server?.closeAllConnections();
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve(undefined));
  }
}

/** What a {@link flakyResponder} answered so far. */
export interface FlakyReceiverStats {
  /** Attempts answered 500. */
  failed: number;
  /** Attempts answered 200 only after `slowMs` (the dispatcher gave up first: a timeout on its side). */
  late: number;
  /** Attempts answered 200 at once. */
  ok: number;
}

/**
 * A receiver that misbehaves like a real one under load: of the attempts at one delivery (told apart by
 * X-SVC-Delivery-Id), the first `maxBadAttempts` each answer 500 with probability `failShare` and 200 only
 * after `slowMs` with probability `slowShare`; later attempts answer 200 at once, so every delivery gets
 * through within the retry schedule. Which attempt misbehaves is decided by a hash of the delivery id and
 * the attempt number (so a rerun with the same ids behaves the same).
 */
export function flakyResponder(options: { failShare: number; slowShare: number; slowMs: number; maxBadAttempts: number }): {
  responder: Responder;
  stats: FlakyReceiverStats;
} {
  const attempts = new Map<string, number>();
  const stats: FlakyReceiverStats = { failed: 0, late: 0, ok: 0 };
  const responder: Responder = (request) => {
    const id = String(request.headers['x-svc-delivery-id'] ?? request.path);
    const attempt = (attempts.get(id) ?? 0) + 1;
    attempts.set(id, attempt);
    const roll = createHash('sha256').update(`${id}#${attempt}`).digest().readUInt32BE(0) / 2 ** 32;
    if (attempt <= options.maxBadAttempts && roll < options.failShare) {
      stats.failed++;
      return { status: 500, body: 'receiver failed' };
    }
    if (attempt <= options.maxBadAttempts && roll < options.failShare + options.slowShare) {
      stats.late++;
      return { status: 200, body: 'ok (late)', delayMs: options.slowMs };
    }
    stats.ok++;
    return { status: 200, body: 'ok' };
  };
  return { responder, stats };
}
