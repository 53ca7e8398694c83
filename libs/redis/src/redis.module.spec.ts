import { TcpProxy } from '@workline/testing';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { RedisService } from './redis.module';
import { roundTrip } from './round-trip';

/** Enough of Redis's protocol for a client's ready check and PING, in process (no infrastructure). */
function fakeRedis(): Server {
  const reply = (name: string) =>
    name === 'INFO'
      ? `$${'redis_version:7.0.0\r\nloading:0\r\n'.length}\r\nredis_version:7.0.0\r\nloading:0\r\n\r\n`
      : name === 'PING'
        ? '+PONG\r\n'
        : '+OK\r\n';
  return createServer((socket) => {
    let buffer = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk: Buffer) => {
      buffer += chunk.toString('latin1');
      // Each command is an array of bulk strings: *<n>\r\n then n times $<len>\r\n<bytes>\r\n.
      for (let match = /^\*(\d+)\r\n/.exec(buffer); match; match = /^\*(\d+)\r\n/.exec(buffer)) {
        let at = match[0].length;
        const parts: string[] = [];
        for (let i = 0; i < Number(match[1]); i++) {
          const header = /^\$(\d+)\r\n/.exec(buffer.slice(at));
          if (!header || buffer.length < at + header[0].length + Number(header[1]) + 2) return;
          parts.push(buffer.slice(at + header[0].length, at + header[0].length + Number(header[1])));
          at += header[0].length + Number(header[1]) + 2;
        }
        buffer = buffer.slice(at);
        socket.write(reply(parts[0].toUpperCase()));
      }
    });
  });
}

describe('RedisService on a link that goes silent', () => {
  let server: Server;
  let proxy: TcpProxy;
  let redis: RedisService;

  beforeAll(async () => {
    server = fakeRedis();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    proxy = await new TcpProxy('redis', { host: '127.0.0.1', port: (server.address() as AddressInfo).port }).start();
    redis = new RedisService(`redis://${proxy.address}`, 200);
    await redis.ping();
  });

  afterAll(async () => {
    redis.disconnect();
    await proxy.stop();
    await new Promise((resolve) => server.close(resolve));
  });

  it('fails a command that gets no answer (callers fail open) instead of waiting until the link heals, then works again', async () => {
    proxy.set({ kind: 'blackhole' });
    // The connection is still up ("ready"): only the answer never comes.
    expect(redis.status).toBe('ready');
    await expect(redis.ping()).rejects.toThrow('Command timed out');
    await expect(roundTrip(redis, { queue: (pipeline) => void pipeline.ping(), read: (reply) => reply })).rejects.toThrow(
      'Command timed out',
    );
    proxy.pass();
    // The late answers to the timed-out commands are read and dropped: the next command gets its own.
    await expect(redis.ping()).resolves.toBe('PONG');
    await expect(roundTrip(redis, { queue: (pipeline) => void pipeline.ping(), read: (reply) => reply })).resolves.toEqual(['PONG']);
  });
});
