import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { postOnce, RESPONSE_EXCERPT_BYTES } from './http-attempt';
import { callsOnly } from '@workline/testing';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

/** One attempt against real loopback receivers (no stack needed). */
describe('postOnce: one attempt over real HTTP', () => {
  let server: Server;
  let port: number;
  let handle: (req: IncomingMessage, res: ServerResponse, body: Buffer) => void = () => undefined;
  const seen: { host?: string; body: Buffer; headers: IncomingMessage['headers'] }[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        seen.push({ host: req.headers.host, body, headers: req.headers });
        handle(req, res, body);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  beforeEach(() => {
    seen.length = 0;
  });

  const target = (path = '/hook', host = '127.0.0.1') => ({
    url: new URL(`http://${host}:${port}${path}`),
    address: '127.0.0.1',
    family: 4 as const,
  });

  it('sends the exact bytes with the given headers and reports the status and the answer', async () => {
    handle = (_req, res) => res.writeHead(201, { 'content-type': 'text/plain' }).end('thanks');
    const body = '{"b":1,  "a":"é"}';
    const result = await postOnce({ target: target(), body, headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' } });
    expect(result).toMatchObject({ statusCode: 201, error: null, responseExcerpt: 'thanks', retryAfter: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(seen).toHaveLength(1);
    expect(seen[0].body.equals(Buffer.from(body, 'utf8'))).toBe(true);
    expect(seen[0].headers).toMatchObject({
      'content-type': 'application/json',
      'x-test': 'yes',
      'content-length': String(Buffer.byteLength(body)),
    });
  });

  it('connects to the checked address whatever the host name says (no second DNS lookup)', async () => {
    handle = (_req, res) => res.writeHead(204).end();
    const result = await postOnce({ target: target('/pinned', 'receiver.invalid'), body: '{}', headers: {} });
    expect(result).toMatchObject({ statusCode: 204, error: null });
    expect(seen[0].host).toBe(`receiver.invalid:${port}`);
  });

  it('does not follow a redirect: the 3xx is the outcome', async () => {
    handle = (req, res) => res.writeHead(req.url === '/moved' ? 302 : 200, { location: '/elsewhere' }).end();
    const result = await postOnce({ target: target('/moved'), body: '{}', headers: {} });
    expect(result).toMatchObject({ statusCode: 302, error: null });
    expect(seen.map((s) => s.body.toString())).toEqual(['{}']);
  });

  it('keeps at most 1 KB of the answer and the Retry-After header', async () => {
    handle = (_req, res) => res.writeHead(503, { 'retry-after': '120' }).end('x'.repeat(5000));
    const result = await postOnce({ target: target(), body: '{}', headers: {} });
    expect(result.statusCode).toBe(503);
    expect(result.retryAfter).toBe('120');
    expect(result.responseExcerpt).toBe('x'.repeat(RESPONSE_EXCERPT_BYTES));
  });

  it('times out when no status arrives in time', async () => {
    handle = () => undefined; // never answers
    const result = await postOnce({ target: target(), body: '{}', headers: {}, timeoutMs: 300 });
    expect(result).toMatchObject({ statusCode: null, error: 'timed out after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
  });

  it('reports a connection error by its code, without the address connected to', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const result = await postOnce({
      target: { url: new URL(`http://127.0.0.1:${closedPort}/`), address: '127.0.0.1', family: 4 },
      body: '{}',
      headers: {},
    });
    expect(result.statusCode).toBeNull();
    expect(result.error).toBe('ECONNREFUSED: the receiver refused the connection');
  });
});
