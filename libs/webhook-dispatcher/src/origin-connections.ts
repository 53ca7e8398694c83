import type { CallbackPolicy } from '@workline/callback-url';
import { Pool } from 'undici';
import { ATTEMPT_TIMEOUT_MS, type DeliveryTarget, pinnedConnector, resolveDeliveryTarget } from './http-attempt';

/** The SSRF check of an origin is redone at least this often (DNS may point it elsewhere since). */
export const ORIGIN_RECHECK_MS = 30_000;
/** Connections of an origin not used for this long are closed, and the origin forgotten. */
const IDLE_CLOSE_MS = 60_000;

interface CheckedOrigin {
  /** scheme://host[:port] and the address that passed the check, which every connection goes to. */
  address: string;
  family: 4 | 6;
  checkedAt: number;
  usedAt: number;
  pool: Pool;
}

/** Where an attempt goes: the checked target and the keep-alive connections to its address. */
export interface OriginConnection {
  target: DeliveryTarget;
  pool: Pool;
}

/**
 * Keep-alive connections for the attempts, pooled per (origin, checked address). The SSRF check of an
 * origin (resolve its host, refuse non-public addresses) is made on first use and again once it is
 * ORIGIN_RECHECK_MS old; every connection of the pool goes to the address that passed the check (a pinned
 * lookup: no second resolution, so DNS rebinding cannot swap it). When a new check answers another address,
 * a new pool takes over and the old one closes once its requests are done. A refused origin is not
 * remembered: the next attempt checks it afresh. A pool has as many connections as the dispatch queue lets
 * attempts run at once to an origin, so an attempt finds one free (or about to be: a connection is free
 * again a moment after its answer ended, or after the rest of a long answer was read, at most a second).
 */
export class OriginConnections {
  private readonly origins = new Map<string, CheckedOrigin>();
  private readonly checking = new Map<string, Promise<CheckedOrigin>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(
    private readonly policy: CallbackPolicy,
    /** Connections per pool: the attempts made at once to one origin (the queue's cap). */
    private readonly connectionsPerOrigin: number,
    private readonly now: () => number = Date.now,
  ) {
    this.sweeper = setInterval(() => this.closeIdle(), IDLE_CLOSE_MS).unref();
  }

  /** The connection for an attempt to `rawUrl`; throws CallbackUrlError when the SSRF check refuses it. */
  async connectionFor(rawUrl: string): Promise<OriginConnection> {
    const url = new URL(rawUrl);
    const origin = url.origin;
    let checked = this.origins.get(origin);
    if (!checked || this.now() - checked.checkedAt >= ORIGIN_RECHECK_MS) checked = await this.check(origin, rawUrl);
    checked.usedAt = this.now();
    return { target: { url, address: checked.address, family: checked.family }, pool: checked.pool };
  }

  /** One check per origin at a time: attempts that need it meanwhile share its answer. */
  private check(origin: string, rawUrl: string): Promise<CheckedOrigin> {
    let pending = this.checking.get(origin);
    if (!pending) {
      pending = this.recheck(origin, rawUrl).finally(() => this.checking.delete(origin));
      this.checking.set(origin, pending);
    }
    return pending;
  }

  private async recheck(origin: string, rawUrl: string): Promise<CheckedOrigin> {
    const previous = this.origins.get(origin);
    let target: DeliveryTarget;
    try {
      target = await resolveDeliveryTarget(rawUrl, this.policy);
    } catch (error) {
      if (previous) this.retire(origin, previous);
      throw error;
    }
    const at = this.now();
    if (previous && previous.address === target.address) {
      previous.checkedAt = at;
      return previous;
    }
    if (previous) this.retire(origin, previous);
    const checked: CheckedOrigin = {
      address: target.address,
      family: target.family,
      checkedAt: at,
      usedAt: at,
      pool: this.poolFor(origin, target),
    };
    this.origins.set(origin, checked);
    return checked;
  }

  private poolFor(origin: string, target: DeliveryTarget): Pool {
    return new Pool(origin, {
      connections: this.connectionsPerOrigin,
      pipelining: 1,
      connect: pinnedConnector(target, ATTEMPT_TIMEOUT_MS),
      // The attempt's own timer governs the exchange; these only stop a connection that hangs past it.
      headersTimeout: ATTEMPT_TIMEOUT_MS * 2,
      bodyTimeout: ATTEMPT_TIMEOUT_MS * 2,
    });
  }

  /** Stops using a pool: it closes once the requests it has are done. */
  private retire(origin: string, checked: CheckedOrigin): void {
    if (this.origins.get(origin) === checked) this.origins.delete(origin);
    checked.pool.close().catch(() => undefined);
  }

  private closeIdle(): void {
    const idleSince = this.now() - IDLE_CLOSE_MS;
    for (const [origin, checked] of this.origins) if (checked.usedAt < idleSince) this.retire(origin, checked);
  }

  /** Origins with a checked address and open pool (for tests and metrics). */
  get size(): number {
    return this.origins.size;
  }

  /** Closes every pool once its requests are done. */
  async close(): Promise<void> {
    clearInterval(this.sweeper);
    const pools = [...this.origins.values()].map((checked) => checked.pool);
    this.origins.clear();
    await Promise.allSettled(pools.map((pool) => pool.close()));
  }
}
