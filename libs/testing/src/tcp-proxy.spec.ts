import { type AddressInfo, connect, createServer, type Server, type Socket } from 'node:net';
import { eventually } from './eventually';
import { TcpProxy } from './tcp-proxy';

/** The proxy in front of an in-process echo server on loopback (no other infrastructure). */
describe('TcpProxy', () => {
  let echo: Server;
  let proxy: TcpProxy;
  const clients: Socket[] = [];

  beforeEach(async () => {
    echo = createServer((socket) => socket.on('data', (chunk) => socket.write(chunk)).on('error', () => undefined));
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
    proxy = await new TcpProxy('echo', { host: '127.0.0.1', port: (echo.address() as AddressInfo).port }).start();
  });

  afterEach(async () => {
    for (const client of clients) client.destroy();
    await proxy.stop();
    await new Promise((resolve) => echo.close(resolve));
  });

  const open = async () => {
    const socket = connect(proxy.port, '127.0.0.1');
    clients.push(socket);
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    return socket;
  };
  /** The first `n` bytes that come back, or what happened instead: 'closed' or the error code. */
  const read = (socket: Socket, n: number) =>
    new Promise<string>((resolve) => {
      let got = '';
      socket.on('data', (chunk) => {
        got += chunk.toString();
        if (got.length >= n) resolve(got);
      });
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? 'error'));
      socket.once('close', () => resolve('closed'));
    });

  it('passes bytes both ways and counts the connection', async () => {
    const socket = await open();
    const echoed = read(socket, 5);
    socket.write('hello');
    expect(await echoed).toBe('hello');
    expect(proxy.counts).toMatchObject({ accepted: 1, open: 1, bytesUp: 5, bytesDown: 5 });
  });

  it('keeps the order of the bytes when it adds latency', async () => {
    proxy.set({ kind: 'latency', ms: 30 });
    const socket = await open();
    const echoed = read(socket, 6);
    socket.write('ab');
    socket.write('cd');
    proxy.pass();
    socket.write('ef');
    expect(await echoed).toBe('abcdef');
  });

  it('resets open connections and new ones while in reset mode, and passes again after', async () => {
    const before = await open();
    const cut = read(before, 1);
    proxy.set({ kind: 'reset' });
    expect(await cut).toBe('ECONNRESET');
    const during = connect(proxy.port, '127.0.0.1');
    clients.push(during);
    expect(await read(during, 1)).toBe('ECONNRESET');
    proxy.pass();
    const after = await open();
    const echoed = read(after, 2);
    after.write('ok');
    expect(await echoed).toBe('ok');
    expect(proxy.counts.reset).toBe(2);
  });

  it('holds every byte in a black hole and delivers them once it is lifted', async () => {
    const socket = await open();
    proxy.set({ kind: 'blackhole' });
    let got = '';
    socket.on('data', (chunk) => (got += chunk.toString()));
    socket.write('lost?');
    const late = await open();
    const lateEcho = read(late, 4);
    late.write('late');
    // A round trip through the echo server that did come back would have shown by now.
    const plain = connect((echo.address() as AddressInfo).port, '127.0.0.1');
    clients.push(plain);
    const direct = read(plain, 3);
    plain.write('via');
    expect(await direct).toBe('via');
    expect(got).toBe('');
    expect(proxy.counts).toMatchObject({ stalled: 2, bytesUp: 0 });
    proxy.pass();
    expect(await lateEcho).toBe('late');
    await eventually(() => got === 'lost?' || undefined, { what: 'the held bytes to come back', timeoutMs: 5000, intervalMs: 10 });
    expect(proxy.counts).toMatchObject({ bytesUp: 9, bytesDown: 9 });
  });

  it('stops at once when a connection is half closed, its target gone and its end still waiting in a pipe', async () => {
    // The target ends its side once the client has; by then the proxy adds a minute of latency, so the
    // client's side of the proxy waits for that end (CLOSE-WAIT) after the target's side has closed.
    let targetClosed!: () => void;
    const closed = new Promise<void>((resolve) => (targetClosed = resolve));
    const target = createServer({ allowHalfOpen: true }, (socket) => {
      socket.on('error', () => undefined).on('close', targetClosed);
      socket.on('end', () => {
        halfClosing.set({ kind: 'latency', ms: 60_000 });
        socket.end();
      });
    });
    await new Promise<void>((resolve) => target.listen(0, '127.0.0.1', resolve));
    const halfClosing = await new TcpProxy('half-closing', { host: '127.0.0.1', port: (target.address() as AddressInfo).port }).start();
    const client = connect(halfClosing.port, '127.0.0.1').on('error', () => undefined);
    clients.push(client);
    await new Promise<void>((resolve) => client.once('connect', resolve));
    client.end();
    await closed;
    await eventually(() => halfClosing.counts.open === 0 || undefined, {
      what: 'the connection to leave the proxy',
      timeoutMs: 5000,
      intervalMs: 10,
    });
    // Before the fix this waited the minute out (the socket no longer counted as open was never closed).
    await halfClosing.stop();
    await new Promise((resolve) => target.close(resolve));
  });
  describe('in front of several targets (a load balancer)', () => {
    /** A loopback port nothing listens on (a server that was started and closed). */
    const closedPort = async () => {
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const { port } = server.address() as AddressInfo;
      await new Promise((resolve) => server.close(resolve));
      return port;
    };

    it('sends a connection a target refused on to the next one, asking the function once per connection', async () => {
      const down = await closedPort();
      const echoPort = (echo.address() as AddressInfo).port;
      let asked = 0;
      const balancer = await new TcpProxy('balancer', () => {
        asked++;
        return [
          { host: '127.0.0.1', port: down },
          { host: '127.0.0.1', port: echoPort },
        ];
      }).start();
      try {
        const socket = connect(balancer.port, '127.0.0.1');
        clients.push(socket);
        const echoed = read(socket, 5);
        socket.write('hello');
        expect(await echoed).toBe('hello');
        expect(asked).toBe(1);
        expect(balancer.counts).toMatchObject({ accepted: 1, redispatched: 1, open: 1, bytesUp: 5 });
      } finally {
        await balancer.stop();
      }
    });

    it('resets the client when every target refused it', async () => {
      const targets = [
        { host: '127.0.0.1', port: await closedPort() },
        { host: '127.0.0.1', port: await closedPort() },
      ];
      const balancer = await new TcpProxy('balancer', () => targets).start();
      try {
        const socket = connect(balancer.port, '127.0.0.1');
        clients.push(socket);
        const outcome = read(socket, 1);
        socket.write('x');
        expect(await outcome).toBe('ECONNRESET');
        expect(balancer.counts).toMatchObject({ accepted: 1, redispatched: 1, open: 0, bytesUp: 0 });
      } finally {
        await balancer.stop();
      }
    });
  });
});
