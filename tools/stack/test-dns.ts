/**
 * A tiny authoritative DNS server on loopback (UDP) for the integration stack, whose apps resolve callback
 * hosts with it (WEBHOOK_DNS_SERVERS). It answers A and AAAA questions for names under `dns.test` from the
 * name itself, so a test needs no channel to it (libs/testing `testDnsName` writes these names):
 *
 *   <address>[.<nonce>].dns.test               that address, every time
 *   <address>.then.<address>.<nonce>.dns.test  the first address to the first question of its type, the
 *                                              second to every later one (DNS rebinding: public at creation,
 *                                              private at delivery)
 *
 * An address is an IPv4 address with dashes for dots (`10-0-0-5`) or `v6-` and an IPv6 address with dashes
 * for colons (`v6-fd00--1`). Other names are NXDOMAIN; a question of the other type is answered with no
 * records. TTL 0, so no resolver keeps an answer.
 */
import dgram from 'node:dgram';
import net from 'node:net';

export const TEST_DNS_ZONE = 'dns.test';
const ZONE = TEST_DNS_ZONE;
const TYPE_A = 1;
const TYPE_AAAA = 28;

/** `10-0-0-5` → 10.0.0.5, `v6-fd00--1` → fd00::1; undefined when the label is not an address. */
function addressOf(label: string): string | undefined {
  const text = label.startsWith('v6-') ? label.slice(3).replace(/-/g, ':') : label.replace(/-/g, '.');
  return net.isIP(text) ? text : undefined;
}

/** The answers a name gets: one address, or two (first, then) for a rebinding name; undefined: not ours. */
function planOf(name: string): { first: string; later: string } | undefined {
  if (!name.endsWith(`.${ZONE}`)) return undefined;
  const labels = name.slice(0, -ZONE.length - 1).split('.');
  const first = addressOf(labels[0]);
  if (!first) return undefined;
  if (labels[1] !== 'then') return { first, later: first };
  const later = addressOf(labels[2] ?? '');
  return later ? { first, later } : undefined;
}

/** The question of a query: its name, type and where it ends in the packet. */
function questionOf(packet: Buffer): { name: string; type: number; end: number } | undefined {
  const labels: string[] = [];
  let at = 12;
  while (at < packet.length && packet[at] !== 0) {
    const length = packet[at];
    if (length > 63) return undefined;
    labels.push(packet.subarray(at + 1, at + 1 + length).toString('latin1'));
    at += 1 + length;
  }
  if (at + 5 > packet.length) return undefined;
  return { name: labels.join('.').toLowerCase(), type: packet.readUInt16BE(at + 1), end: at + 5 };
}

function recordOf(address: string): { type: number; data: Buffer } {
  const family = net.isIP(address);
  if (family === 4) return { type: TYPE_A, data: Buffer.from(address.split('.').map(Number)) };
  const data = Buffer.alloc(16);
  const [head, tail] = address.includes('::') ? address.split('::') : [address, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const parts = [...headParts, ...Array(tail === undefined ? 0 : 8 - headParts.length - tailParts.length).fill('0'), ...tailParts];
  parts.forEach((part, i) => data.writeUInt16BE(parseInt(part || '0', 16), i * 2));
  return { type: TYPE_AAAA, data };
}

export interface TestDns {
  /** Its `host:port` (WEBHOOK_DNS_SERVERS). */
  server: string;
  stop(): Promise<void>;
}

/** Starts the server on 127.0.0.1 (port 0: the OS picks); resolves with its `host:port` and a stop(). */
export async function startTestDns(): Promise<TestDns> {
  const asked = new Map<string, number>();
  const socket = dgram.createSocket('udp4');
  socket.on('message', (packet, from) => {
    if (packet.length < 12 || packet.readUInt16BE(4) !== 1) return;
    const question = questionOf(packet);
    if (!question) return;
    const plan = planOf(question.name);
    const key = `${question.name} ${question.type}`;
    const nth = (asked.get(key) ?? 0) + 1;
    asked.set(key, nth);
    const record = plan && recordOf(nth === 1 ? plan.first : plan.later);
    const answers = record && record.type === question.type ? [record] : [];
    const header = Buffer.alloc(12);
    header.writeUInt16BE(packet.readUInt16BE(0), 0);
    // QR, the query's opcode and RD, AA; RCODE 3 (NXDOMAIN) for a name that is not ours.
    header.writeUInt16BE(0x8400 | (packet.readUInt16BE(2) & 0x7900) | (plan ? 0 : 3), 2);
    header.writeUInt16BE(1, 4);
    header.writeUInt16BE(answers.length, 6);
    const records = answers.map(({ type, data }) => {
      const fixed = Buffer.alloc(12);
      fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
      fixed.writeUInt16BE(type, 2);
      fixed.writeUInt16BE(1, 4); // class IN
      fixed.writeUInt32BE(0, 6); // TTL 0
      fixed.writeUInt16BE(data.length, 10);
      return Buffer.concat([fixed, data]);
    });
    socket.send(Buffer.concat([header, packet.subarray(12, question.end), ...records]), from.port, from.address);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', reject);
    socket.bind(0, '127.0.0.1', () => resolve());
  });
  // Never what keeps a process alive: it serves while the test run does.
  socket.unref();
  const { port } = socket.address();
  return { server: `127.0.0.1:${port}`, stop: () => new Promise<void>((resolve) => socket.close(() => resolve())) };
}
