import { type AddressInfo, createServer, type Server, type Socket, connect } from 'node:net';

/**
 * What a {@link TcpProxy} does with its connections, switchable at any time:
 * - `pass`: forward bytes both ways as they come;
 * - `latency`: forward them `ms` later in each direction (order kept, so a round trip takes 2 × `ms` more);
 * - `reset`: cut every open connection with a TCP RST, and reset each new one as soon as it is accepted;
 * - `blackhole`: accept connections but forward nothing either way (every byte waits, as on a network path
 *   that drops packets: the peer sees neither an answer nor an error, only silence). When the mode changes
 *   back, what waited is delivered (TCP's retransmissions get through once the path heals); a peer that gave
 *   up meanwhile closed its side, and the proxy then closes the other side.
 */
export type ProxyMode = { kind: 'pass' } | { kind: 'latency'; ms: number } | { kind: 'reset' } | { kind: 'blackhole' };

export interface ProxyCounts {
  /** Connections accepted so far. */
  accepted: number;
  /** Connections the proxy reset (mode `reset`). */
  reset: number;
  /** Connections that were held in a black hole at least once. */
  stalled: number;
  /** Connections sent on to the next target after one refused them (a target list, see {@link TcpProxy}). */
  redispatched: number;
  /** Connections open now. */
  open: number;
  /** Bytes forwarded client → target and target → client. */
  bytesUp: number;
  bytesDown: number;
}

/** One direction of a proxied connection: bytes from `from` go to `to`, after the mode's delay, in order. */
class Pipe {
  private readonly queue: { due: number; chunk: Buffer }[] = [];
  private timer?: NodeJS.Timeout;
  private held = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly proxy: TcpProxy,
    private readonly count: (bytes: number) => void,
  ) {
    from.on('data', (chunk: Buffer) => {
      this.queue.push({ due: Date.now() + this.proxy.latencyMs(), chunk });
      this.pump();
    });
    const ended = () => {
      this.queue.push({ due: Date.now() + this.proxy.latencyMs(), chunk: Buffer.alloc(0) });
      this.pump();
    };
    // A socket the server accepted emits 'end' with no listener once its peer's end has come and nothing is
    // left unread: one that ended while its target was being connected has done so already.
    if (from.readableEnded) ended();
    else from.on('end', ended);
    // Nothing queued can be written once `to` is gone; a pending delay would otherwise keep the process alive
    // for up to the latency set (a minute in a test), after stop().
    to.on('close', () => {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.queue.length = 0;
    });
  }

  /** Stops forwarding (black hole): nothing more is read from `from` and nothing queued is written. */
  hold(): void {
    this.held = true;
    this.from.pause();
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  release(): void {
    this.held = false;
    this.from.resume();
    this.pump();
  }

  private pump(): void {
    if (this.held || this.timer || this.to.destroyed) return;
    while (this.queue.length) {
      const wait = this.queue[0].due - Date.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      const { chunk } = this.queue.shift()!;
      if (this.to.destroyed) return;
      if (chunk.length === 0) this.to.end();
      else {
        this.count(chunk.length);
        this.to.write(chunk);
      }
    }
  }
}

interface Connection {
  client: Socket;
  target: Socket;
  pipes: Pipe[];
  stalled: boolean;
}

export interface ProxyTarget {
  host: string;
  port: number;
}

/** The host and port a URL names, as a proxy's target. */
export function proxyTargetOf(url: string): ProxyTarget {
  const { hostname, port } = new URL(url);
  return { host: hostname, port: Number(port) };
}

/**
 * A TCP proxy on 127.0.0.1 in front of one target, whose behaviour a test switches at runtime (network
 * faults between an app and a dependency, docs/operations.md "Fault tests"). Nothing is parsed: bytes are
 * bytes, so it serves PostgreSQL, Redis, Kafka and HTTP alike.
 *
 * In front of several targets (a function naming them, in the order to try, for each new connection) it is a
 * layer-4 load balancer: a target that refuses the connection is skipped for the next one, as HAProxy's
 * redispatch or nginx's `proxy_next_upstream error` do (nothing was sent, so nothing can be applied twice);
 * the client is reset only when every target refused.
 */
export class TcpProxy {
  private server?: Server;
  private mode: ProxyMode = { kind: 'pass' };
  private readonly connections = new Set<Connection>();
  /**
   * Every socket open now, both sides. A connection leaves `connections` when either side closes, but the
   * other may stay open (half-closed, its end still queued in a held pipe): stop() must close it too, or
   * the server never finishes closing (a fault run once hung on one such socket in CLOSE-WAIT).
   */
  private readonly sockets = new Set<Socket>();
  private readonly tally = { accepted: 0, reset: 0, stalled: 0, redispatched: 0, bytesUp: 0, bytesDown: 0 };
  port = 0;

  constructor(
    readonly name: string,
    private readonly target: ProxyTarget | (() => ProxyTarget[]),
    private readonly listenPort = 0,
  ) {}

  async start(): Promise<this> {
    this.server = createServer({ allowHalfOpen: true }, (client) => this.accept(client));
    await new Promise<void>((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(this.listenPort, '127.0.0.1', () => resolve());
    });
    this.port = (this.server.address() as AddressInfo).port;
    return this;
  }

  get address(): string {
    return `127.0.0.1:${this.port}`;
  }

  /** The added delay in each direction now (0 unless the mode is `latency`). */
  latencyMs(): number {
    return this.mode.kind === 'latency' ? this.mode.ms : 0;
  }

  get counts(): ProxyCounts {
    return { ...this.tally, open: this.connections.size };
  }

  get current(): ProxyMode {
    return this.mode;
  }

  /** Switches the mode; open connections follow it at once (see {@link ProxyMode}). */
  set(mode: ProxyMode): void {
    this.mode = mode;
    for (const connection of this.connections) {
      if (mode.kind === 'reset') this.reset(connection);
      else if (mode.kind === 'blackhole') this.stall(connection);
      else if (connection.stalled) {
        connection.stalled = false;
        for (const pipe of connection.pipes) pipe.release();
      }
    }
  }

  pass(): void {
    this.set({ kind: 'pass' });
  }

  private accept(client: Socket): void {
    this.tally.accepted++;
    client.on('error', () => undefined);
    this.track(client);
    if (this.mode.kind === 'reset') {
      this.tally.reset++;
      client.resetAndDestroy();
      return;
    }
    client.setNoDelay(true);
    // Until a target is connected the client is not read (no 'data' listener yet): its bytes wait in its socket.
    this.dial(client, typeof this.target === 'function' ? this.target() : [this.target], 0);
  }

  /** Connects `client` to `targets[index]`, or to the next one if that one refuses; resets it past the last. */
  private dial(client: Socket, targets: ProxyTarget[], index: number): void {
    const { host, port } = targets[index];
    const target = connect({ port, host, allowHalfOpen: true });
    this.track(target);
    const clientGone = () => target.destroy();
    client.once('close', clientGone);
    const refused = () => {
      client.off('close', clientGone);
      target.destroy();
      if (client.destroyed) return;
      if (index + 1 < targets.length) {
        this.tally.redispatched++;
        this.dial(client, targets, index + 1);
      } else client.resetAndDestroy();
    };
    target.once('error', refused);
    target.once('connect', () => {
      client.off('close', clientGone);
      target.off('error', refused);
      target.on('error', () => undefined);
      this.wire(client, target);
    });
  }

  private wire(client: Socket, target: Socket): void {
    target.setNoDelay(true);
    const connection: Connection = { client, target, pipes: [], stalled: false };
    connection.pipes.push(
      new Pipe(client, target, this, (n) => (this.tally.bytesUp += n)),
      new Pipe(target, client, this, (n) => (this.tally.bytesDown += n)),
    );
    this.connections.add(connection);
    // A clean close reaches the other side through its pipe (an end after the bytes before it); a side
    // that fails takes the other with it at once, as a reset (the peer sees an error too).
    const close = (other: Socket, hadError: boolean) => {
      this.connections.delete(connection);
      if (hadError && !other.destroyed) other.resetAndDestroy();
    };
    client.on('close', (hadError) => close(target, hadError));
    target.on('close', (hadError) => close(client, hadError));
    // The mode may have changed while the target was being connected.
    if (this.mode.kind === 'reset') this.reset(connection);
    else if (this.mode.kind === 'blackhole') this.stall(connection);
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private reset(connection: Connection): void {
    this.connections.delete(connection);
    this.tally.reset++;
    if (!connection.client.destroyed) connection.client.resetAndDestroy();
    if (!connection.target.destroyed) connection.target.resetAndDestroy();
  }

  private stall(connection: Connection): void {
    if (connection.stalled) return;
    connection.stalled = true;
    this.tally.stalled++;
    for (const pipe of connection.pipes) pipe.hold();
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    this.connections.clear();
    await new Promise((resolve) => this.server?.close(resolve) ?? resolve(undefined));
  }
}
