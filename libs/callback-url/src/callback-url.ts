import { lookup, Resolver } from 'node:dns/promises';
import { isIP } from 'node:net';

/**
 * Callback URL policy (SSRF guard). Workline posts to URLs its clients give it, so a URL must not reach
 * into Workline's own network: loopback, private, link-local, CGNAT, multicast, reserved and cloud
 * metadata addresses are refused, for IPv4 and IPv6. It is checked when a task or run is created (on the
 * URL's host as resolved then) and again by the dispatcher right before each attempt, on the address it
 * actually connects to. WEBHOOK_ALLOW_PRIVATE lifts it (`1`, local development) or lets chosen ranges through
 * (a list); WEBHOOK_DNS_SERVERS resolves names with chosen servers instead of the system's (CallbackPolicy).
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

const METADATA = 'a cloud metadata address';

/** Prefixes refused whole because what they reach depends on a relay or translator we do not control. */
const TUNNELLED_V6: Range[] = [c6('2001::', 32, 'a Teredo tunnel address'), c6('64:ff9b:1::', 48, 'a local-use NAT64 address')];

/**
 * The IPv4 address an IPv6 address carries, for the forms that reach it: IPv4-mapped (::ffff:a.b.c.d),
 * IPv4-translated (::ffff:0:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96, RFC 6052) and
 * 6to4 (2002:AABB:CCDD::/48, RFC 3056).
 */
function embeddedV4(n: bigint): { v4: bigint; mapped: boolean } | undefined {
  const low32 = n & 0xffffffffn;
  const high96 = n >> 32n;
  if (high96 === 0xffffn) return { v4: low32, mapped: true };
  if (high96 === 0xffff0000n || (high96 === 0n && low32 > 1n) || high96 === v6('64:ff9b::') >> 32n) return { v4: low32, mapped: false };
  if (n >> 112n === 0x2002n) return { v4: (n >> 80n) & 0xffffffffn, mapped: false };
  return undefined;
}

/** An address range given as `a.b.c.d/bits`, `v6::/bits` or a single address (WEBHOOK_ALLOW_PRIVATE). */
export interface AddressRange {
  family: 4 | 6;
  start: bigint;
  end: bigint;
}

/** Parses `10.20.0.0/16`, `fd00::/8` or `127.0.0.1`; undefined when it is none of these. */
export function parseAddressRange(text: string): AddressRange | undefined {
  const [ip, bitsText, ...rest] = text.trim().split('/');
  const family = isIP(ip);
  if (rest.length || (family !== 4 && family !== 6)) return undefined;
  const width = family === 4 ? 32 : 128;
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : NaN;
  if (!(bits >= 0 && bits <= width)) return undefined;
  const [start, end] = cidr(family === 4 ? v4(ip) : v6(ip), bits, width, '');
  return { family, start, end };
}

const within = (ranges: readonly AddressRange[], family: 4 | 6, n: bigint) =>
  ranges.some((r) => r.family === family && n >= r.start && n <= r.end);

/**
 * Why an IP address may not be called back, or undefined when it may: a public address, or a non-public
 * one inside `allowed` (cloud metadata addresses never are). An IPv6 address carrying an IPv4 one is
 * refused for the IPv4 address's reason. A listed range lets through addresses of its own family as they
 * are connected to: an IPv4-mapped address is its IPv4 address, but a 6to4 or NAT64 one goes through a
 * relay or translator, so only an IPv6 range that names it lets it through.
 */
export function blockedAddressReason(ip: string, allowed: readonly AddressRange[] = []): string | undefined {
  const family = isIP(ip);
  if (family !== 4 && family !== 6) return 'not an IP address';
  const refused = (reason: string | undefined, listed: boolean) => (reason && (reason === METADATA || !listed) ? reason : undefined);
  if (family === 4) {
    const n = v4(ip);
    return refused(find(BLOCKED_V4, n), within(allowed, 4, n));
  }
  const n = v6(ip);
  const carried = embeddedV4(n);
  if (carried) return refused(find(BLOCKED_V4, carried.v4), carried.mapped ? within(allowed, 4, carried.v4) : within(allowed, 6, n));
  return refused(find([...TUNNELLED_V6, ...BLOCKED_V6], n), within(allowed, 6, n));
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

/**
 * How callback URLs are checked, from WEBHOOK_ALLOW_PRIVATE and WEBHOOK_DNS_SERVERS (BaseEnv
 * `callbackPolicy`). The default (all empty) refuses every non-public address and resolves names with the
 * system resolver.
 */
export interface CallbackPolicy {
  /** Lifts the guard for every address (WEBHOOK_ALLOW_PRIVATE=1): local development and tests only. */
  allowPrivate?: boolean;
  /** Non-public addresses or CIDR ranges allowed anyway (WEBHOOK_ALLOW_PRIVATE=<list>). */
  allowedRanges?: readonly string[];
  /** `ip` or `ip:port` of DNS servers asked directly (A and AAAA) instead of the system resolver. */
  dnsServers?: readonly string[];
}

const DNS_TIMEOUT_MS = 2000;
const resolvers = new Map<string, Resolver>();

/** A resolver per server list, kept: each asks those servers only, never /etc/hosts or the system's. */
function resolverFor(servers: readonly string[]): Resolver {
  const key = servers.join(',');
  let resolver = resolvers.get(key);
  if (!resolver) {
    resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 2 });
    resolver.setServers([...servers]);
    resolvers.set(key, resolver);
  }
  return resolver;
}

/** Every address `host` resolves to now; none when it does not resolve (or the resolver fails). */
async function addressesOf(host: string, dnsServers: readonly string[] = []): Promise<string[]> {
  if (isIP(host)) return [host];
  if (!dnsServers.length) return (await lookup(host, { all: true, verbatim: true }).catch(() => [])).map((a) => a.address);
  const resolver = resolverFor(dnsServers);
  const [a, aaaa] = await Promise.all([resolver.resolve4(host).catch(() => []), resolver.resolve6(host).catch(() => [])]);
  return [...a, ...aaaa];
}

const rangesOf = (policy: CallbackPolicy) =>
  (policy.allowedRanges ?? []).map((text) => {
    const range = parseAddressRange(text);
    if (!range) throw new Error(`not an address range: ${text}`);
    return range;
  });

/**
 * Resolves `host` and returns its addresses, refusing the host when any of them is not public (unless the
 * policy allows it). A refused name is reported as resolving to "a private address", without the address
 * or its kind: the message reaches the client, and must not map Workline's internal DNS for it.
 */
export async function resolvePublicAddresses(host: string, policy: CallbackPolicy = {}): Promise<string[]> {
  const addresses = await addressesOf(host, policy.dnsServers);
  if (!addresses.length) throw new CallbackUrlError(`callback_url host ${host} does not resolve`);
  if (!policy.allowPrivate) {
    const allowed = rangesOf(policy);
    for (const address of addresses) {
      const reason = blockedAddressReason(address, allowed);
      if (!reason) continue;
      throw new CallbackUrlError(
        `callback_url must point to a public address: ` +
          `${address === host ? `${host} is ${reason}` : `${host} resolves to a private address`}`,
      );
    }
  }
  return addresses;
}

/** The check at creation time: parse, then resolve and refuse non-public hosts. */
export async function checkCallbackUrl(raw: string, policy: CallbackPolicy = {}): Promise<ParsedCallbackUrl> {
  const parsed = parseCallbackUrl(raw);
  await resolvePublicAddresses(parsed.host, policy);
  return parsed;
}
