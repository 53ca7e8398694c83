import type { PublicSurface } from '@workline/db';
import { inMemoryCommand, type InMemoryRoundTrip } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import type { BucketCount, FailedAuthCounters } from '../failed-auth-counters';
import type { IdentityEpoch } from '../identity-epoch';

/**
 * The failed-auth buckets in memory, as FailedAuthCounters' scripts keep them in Redis: a count whose window
 * starts with its first failure and ends `windowSeconds` later (TTL in whole seconds, -2 for an empty bucket).
 * `nowMs` is the test's clock; while the round trip is down, every call rejects.
 */
export class InMemoryFailedAuthCounters implements PublicSurface<FailedAuthCounters> {
  nowMs = Date.parse('2026-11-30T12:00:00Z');
  private readonly buckets = new Map<string, { count: number; endsAtMs: number }>();

  constructor(private readonly redis: InMemoryRoundTrip) {}

  /** What a bucket holds now (a test's own look, not a call of the service). */
  state(bucket: string): BucketCount {
    const live = this.live(bucket);
    return { count: live?.count ?? 0, ttl: live ? Math.round((live.endsAtMs - this.nowMs) / 1000) : -2 };
  }

  async reserve(bucket: string, limit: number, windowSeconds: number): Promise<{ reserved: boolean; ttl: number }> {
    this.redis.check();
    const { count, ttl } = this.state(bucket);
    if (count >= limit) return { reserved: false, ttl };
    return { reserved: true, ttl: this.increment(bucket, windowSeconds).ttl };
  }

  async release(bucket: string): Promise<void> {
    this.redis.check();
    const live = this.live(bucket);
    if (live && live.count > 0) live.count--;
  }

  async record(bucket: string, windowSeconds: number): Promise<BucketCount> {
    this.redis.check();
    return this.increment(bucket, windowSeconds);
  }

  peek(bucket: string) {
    return inMemoryCommand(() => this.state(bucket));
  }

  private increment(bucket: string, windowSeconds: number): BucketCount {
    const live = this.live(bucket) ?? { count: 0, endsAtMs: this.nowMs + windowSeconds * 1000 };
    live.count++;
    this.buckets.set(bucket, live);
    return this.state(bucket);
  }

  private live(bucket: string) {
    const found = this.buckets.get(bucket);
    if (found && found.endsAtMs <= this.nowMs) this.buckets.delete(bucket);
    return found && found.endsAtMs > this.nowMs ? found : undefined;
  }
}

/** The identity epoch in memory: a random value, a fresh one after each bump and after a flush (Redis lost it). */
export class InMemoryIdentityEpoch implements PublicSurface<IdentityEpoch> {
  private value?: string;

  constructor(private readonly redis: InMemoryRoundTrip) {}

  read() {
    return inMemoryCommand(() => (this.value ??= randomUUID()));
  }

  async bump(): Promise<void> {
    this.redis.check();
    this.value = randomUUID();
  }

  /** Redis restarted or was flushed: the next read writes a new epoch. */
  flush(): void {
    this.value = undefined;
  }
}
