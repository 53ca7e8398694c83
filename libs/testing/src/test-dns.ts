import { randomUUID } from 'node:crypto';

/** The zone of the integration stack's DNS server (tools/stack/test-dns.ts), which its apps resolve callback hosts with. */
export const TEST_DNS_ZONE = 'dns.test';

const label = (address: string) => (address.includes(':') ? `v6-${address.replace(/:/g, '-')}` : address.replace(/\./g, '-'));

/**
 * A host name the test stack's DNS server resolves to `address`, or, with `later`, to `address` the first
 * time it is asked and to `later` every time after (DNS rebinding). Each name is new (a random label), so
 * no earlier question counts.
 */
export function testDnsName(address: string, later?: string): string {
  const nonce = randomUUID().slice(0, 8);
  return later ? `${label(address)}.then.${label(later)}.${nonce}.${TEST_DNS_ZONE}` : `${label(address)}.${nonce}.${TEST_DNS_ZONE}`;
}
