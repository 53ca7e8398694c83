import { CallbackUrlError } from '@workline/callback-url';
import { callsOnly, eventually, testDnsName, testStack } from '@workline/testing';
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { postOnce } from './http-attempt';
import { ORIGIN_RECHECK_MS, OriginConnections } from './origin-connections';

// It calls no app: the stack's DNS server and a receiver of its own (libs/testing/src/stack-turns.ts).
callsOnly([]);

/**
 * The SSRF check of a pooled origin, redone once it is ORIGIN_RECHECK_MS old, on the real resolver path: host
 * names are resolved by the integration stack's DNS server (WEBHOOK_DNS_SERVERS), whose rebinding names answer
 * one address to the first question and another to every later one, and attempts go over real keep-alive
 * connections to a receiver on loopback. Only the clock is the test's, so 30 s pass at once.
 */
describe('OriginConnections: the SSRF check of a pooled origin is redone every 30 s', () => {
  let receiver: Server;
  let port: number;
  /** The client port of the connection each request came on, in arrival order. */
  const requestsFrom: number[] = [];
  const sockets: Socket[] = [];
  // As the stack's dispatcher sees it: 127.0.0.1 (the receivers' address) allowed, every other private address refused.
  const policy = { allowedRanges: ['127.0.0.1'], dnsServers: [testStack().appEnv.WEBHOOK_DNS_SERVERS] };
  let now = 1_000_000;
  let connections: OriginConnections;

  beforeAll(async () => {
    receiver = createServer((request, response) => {
      requestsFrom.push(request.socket.remotePort!);
      request.resume().on('end', () => response.writeHead(204).end());
    });
    receiver.on('connection', (socket: Socket) => sockets.push(socket));
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    port = (receiver.address() as AddressInfo).port;
  });

  afterAll(async () => {
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  beforeEach(() => {
    requestsFrom.length = 0;
    sockets.length = 0;
    // One connection per origin: a second attempt finds it free, or waits for it, rather than opening another
    // because the first was not yet free again a moment after its answer ended.
    connections = new OriginConnections(policy, 1, () => now);
  });

  afterEach(() => connections.close());

  /** One attempt as the dispatcher makes it: the origin's checked address and pooled connections, then the POST. */
  const attempt = async (url: string) => {
    const { target, pool } = await connections.connectionFor(url);
    return postOnce({ target, body: '{"n":1}', headers: { 'content-type': 'application/json' }, pool });
  };

  it(
    'reuses the pooled connection until the check is 30 s old, then refuses the name that now resolves to a private ' +
      'address and drops its connection',
    async () => {
      const url = `http://${testDnsName('127.0.0.1', '10.0.0.5')}:${port}/hook`;
      expect(await attempt(url)).toMatchObject({ statusCode: 204, error: null });
      // Just before 30 s: no new check (one would be answered 10.0.0.5 and refused), the same kept-alive connection.
      now += ORIGIN_RECHECK_MS - 1;
      expect(await attempt(url)).toMatchObject({ statusCode: 204, error: null });
      expect(sockets).toHaveLength(1);
      expect(requestsFrom).toEqual([requestsFrom[0], requestsFrom[0]]);

      // 30 s after the check: checked again, and the name now resolves to 10.0.0.5.
      now += 1;
      await expect(connections.connectionFor(url)).rejects.toThrow(CallbackUrlError);
      await expect(connections.connectionFor(url)).rejects.toThrow(/resolves to a private address/);
      expect(connections.size).toBe(0);
      // The connection to the address checked before is closed, not kept for a later attempt.
      await eventually(() => sockets[0].destroyed || undefined, {
        what: 'the pooled connection to close',
        timeoutMs: 5_000,
        intervalMs: 20,
      });
      expect(requestsFrom).toHaveLength(2);
    },
  );

  it('keeps the pooled connection when the check redone at 30 s answers the same address', async () => {
    const url = `http://${testDnsName('127.0.0.1')}:${port}/hook`;
    expect(await attempt(url)).toMatchObject({ statusCode: 204 });
    now += ORIGIN_RECHECK_MS;
    expect(await attempt(url)).toMatchObject({ statusCode: 204 });
    now += ORIGIN_RECHECK_MS;
    expect(await attempt(url)).toMatchObject({ statusCode: 204 });
    expect(sockets).toHaveLength(1);
    expect(new Set(requestsFrom).size).toBe(1);
    expect(connections.size).toBe(1);
  });
});
