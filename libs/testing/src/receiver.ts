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
        const request: ReceivedRequest = { path, method: req.method ?? '', headers: req.headers, rawBody: Buffer.concat(chunks), receivedAt: Date.now() };
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
