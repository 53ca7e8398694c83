import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Callback URL policy (SSRF guard). Workline posts to URLs its clients give it, so a URL must not reach
 * into Workline's own network: loopback, private, link-local, CGNAT, multicast, reserved and cloud
 * metadata addresses are refused, for IPv4 and IPv6. It is checked when a task or run is created (on the
 * URL's host as resolved then) and again by the dispatcher right before each attempt, on the address it
 * actually connects to. `allowPrivate` (WEBHOOK_ALLOW_PRIVATE=1) lifts it for local development and tests.
 */

type Range = [bigint, bigint, string];

const v4 = (ip: string) => ip.split('.').reduce((n, part) => (n << 8n) + BigInt(Number(part)), 0n);

function v6(ip: string): bigint {
  let text = ip.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = v4(dotted[1]);
    text = text.slice(0, -dotted[1].length) + `${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - headParts.length - tailParts.length).fill('0');
  return [...headParts, ...zeros, ...tailParts].reduce((n, part) => (n << 16n) + BigInt(parseInt(part || '0', 16)), 0n);
}

const cidr = (base: bigint, bits: number, width: number, label: string): Range => {
  const size = 1n << BigInt(width - bits);
  const start = (base / size) * size;
  return [start, start + size - 1n, label];
};
const c4 = (ip: string, bits: number, label: string) => cidr(v4(ip), bits, 32, label);
const c6 = (ip: string, bits: number, label: string) => cidr(v6(ip), bits, 128, label);

const BLOCKED_V4: Range[] = [
  c4('169.254.169.254', 32, 'a cloud metadata address'),
  c4('100.100.100.200', 32, 'a cloud metadata address'),
  c4('0.0.0.0', 8, 'an unspecified address'),
  c4('10.0.0.0', 8, 'a private address'),
  c4('100.64.0.0', 10, 'a shared (CGNAT) address'),
  c4('127.0.0.0', 8, 'a loopback address'),
  c4('169.254.0.0', 16, 'a link-local address'),
  c4('172.16.0.0', 12, 'a private address'),
  c4('192.0.0.0', 24, 'a reserved address'),
  c4('192.0.2.0', 24, 'a documentation address'),
  c4('192.168.0.0', 16, 'a private address'),
  c4('198.18.0.0', 15, 'a benchmarking address'),
  c4('198.51.100.0', 24, 'a documentation address'),
  c4('203.0.113.0', 24, 'a documentation address'),
  c4('224.0.0.0', 4, 'a multicast address'),
  c4('240.0.0.0', 4, 'a reserved address'),
];

const BLOCKED_V6: Range[] = [
  c6('fd00:ec2::254', 128, 'a cloud metadata address'),
  c6('::', 128, 'an unspecified address'),
  c6('::1', 128, 'a loopback address'),
  c6('fc00::', 7, 'a private (unique local) address'),
  c6('fe80::', 10, 'a link-local address'),
  c6('fec0::', 10, 'a site-local address'),
  c6('ff00::', 8, 'a multicast address'),
  c6('2001:db8::', 32, 'a documentation address'),
  c6('100::', 64, 'a discard address'),
];

const find = (ranges: Range[], n: bigint) => ranges.find(([start, end]) => n >= start && n <= end)?.[2];

/** Why an IP address may not be called back, or undefined when it is a public address. */
export function blockedAddressReason(ip: string): string | undefined {
  const family = isIP(ip);
  if (family === 4) return find(BLOCKED_V4, v4(ip));
  if (family !== 6) return 'not an IP address';
  const n = v6(ip);
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d) and NAT64 (64:ff9b::/96) carry an IPv4 address.
  const low32 = n & 0xffffffffn;
  const high96 = n >> 32n;
  if (high96 === 0xffffn || (high96 === 0n && low32 > 1n) || high96 === v6('64:ff9b::') >> 32n) {
    const embedded = [24n, 16n, 8n, 0n].map((shift) => String((low32 >> shift) & 0xffn)).join('.');
    return find(BLOCKED_V4, v4(embedded));
  }
  return find(BLOCKED_V6, n);
}

export class CallbackUrlError extends Error {}

export interface ParsedCallbackUrl {
  /** The URL without credentials: safe to store, log and show. */
  url: string;
  /** `Basic <base64>` when the URL carried user:password, else undefined. Keep it secret. */
  authorization?: string;
  host: string;
}

/** Parses a callback URL (http or https), splitting off any userinfo into an Authorization value. */
export function parseCallbackUrl(raw: string): ParsedCallbackUrl {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new CallbackUrlError('callback_url must be an absolute http(s) URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new CallbackUrlError('callback_url must use http or https');
  let authorization: string | undefined;
  if (url.username || url.password) {
    const user = decodeURIComponent(url.username);
    const password = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url: url.toString(), authorization, host: url.hostname.replace(/^\[|\]$/g, '') };
}

/** Resolves `host` and returns its addresses, refusing any that is not public (unless allowPrivate). */
export async function resolvePublicAddresses(host: string, { allowPrivate = false } = {}): Promise<string[]> {
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  if (!addresses.length) throw new CallbackUrlError(`callback_url host ${host} does not resolve`);
  if (!allowPrivate) {
    for (const address of addresses) {
      const reason = blockedAddressReason(address);
      if (reason) {
        throw new CallbackUrlError(
          `callback_url must point to a public address: ${host}${address === host ? '' : ` resolves to ${address}, which`} is ${reason}`,
        );
      }
    }
  }
  return addresses;
}

/** The check at creation time: parse, then resolve and refuse non-public hosts. */
export async function checkCallbackUrl(raw: string, options: { allowPrivate?: boolean } = {}): Promise<ParsedCallbackUrl> {
  const parsed = parseCallbackUrl(raw);
  await resolvePublicAddresses(parsed.host, options);
  return parsed;
}
