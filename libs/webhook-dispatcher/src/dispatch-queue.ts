/** What the dispatch queue needs to know of a delivery. */
export interface Dispatchable {
  id: string;
  /** scheme://host[:port] of its URL: the unit of the per-origin concurrency cap. */
  origin: string;
  /** Bytes of its body, held in memory while it waits. */
  bytes: number;
}

export interface DispatchQueueOptions {
  /** Attempts under way at once, all origins together (WEBHOOK_CONCURRENCY). */
  concurrency: number;
  /** Attempts under way at once to one origin (WEBHOOK_ORIGIN_CONCURRENCY). */
  originConcurrency: number;
  /** Deliveries held (waiting or under way), all origins together. */
  maxHeld: number;
  /** Bytes of bodies held, all origins together (one delivery is always let in, whatever its size). */
  maxHeldBytes: number;
  /**
   * How long the last delivery held for an origin may wait for its turn: an origin holds no more than its
   * cap can attempt in this time at its recent pace (so every delivery is attempted well inside its lease).
   */
  waitBudgetMs: number;
  /** The pace assumed of an origin not seen yet, and the slowest pace any origin is assumed to have. */
  slowestAttemptMs: number;
}

interface Origin<T> {
  waiting: T[];
  inFlight: number;
  /** Recent attempt duration (exponentially weighted), ms. */
  paceMs: number;
}

/** Weight of the newest attempt in an origin's pace. */
const PACE_WEIGHT = 0.2;
/** Every origin may hold at least this many times its cap. */
const MIN_HELD_PER_SLOT = 2;
/** Paces of this many origins are kept; idle ones beyond are forgotten (looked at every PRUNE_EVERY attempts). */
const MAX_ORIGINS_KEPT = 1024;
const PRUNE_EVERY = 256;

/**
 * The in-memory queue of deliveries this instance holds a lease on, in front of the HTTP attempts. It
 * hands out the next delivery to attempt round-robin over origins, never more than `originConcurrency`
 * at once to one origin nor `concurrency` in all, so one slow receiver holds at most its own slots while
 * deliveries to the others keep flowing. It also says how many more deliveries of an origin it may take
 * (`room`), from that origin's recent pace: a fast receiver's backlog is held in memory, a slow one's
 * stays in PostgreSQL until its turn comes.
 */
export class DispatchQueue<T extends Dispatchable> {
  private readonly origins = new Map<string, Origin<T>>();
  /** Origins with deliveries waiting, in the order they are served. */
  private readonly rotation: string[] = [];
  private readonly held = new Map<string, T>();
  private heldBytes = 0;
  private inFlightCount = 0;
  private ended = 0;

  constructor(private readonly options: DispatchQueueOptions) {}

  get size(): number {
    return this.held.size;
  }

  get inFlight(): number {
    return this.inFlightCount;
  }

  get waiting(): number {
    return this.held.size - this.inFlightCount;
  }

  get(id: string): T | undefined {
    return this.held.get(id);
  }

  /** How many more deliveries may be held, all origins together (0 when full, by count or bytes). */
  room(): number {
    if (this.heldBytes >= this.options.maxHeldBytes) return 0;
    return Math.max(0, this.options.maxHeld - this.held.size);
  }

  /** Bytes of bodies that may still be taken in (always at least one delivery's worth when nothing is held). */
  roomBytes(): number {
    return this.held.size ? Math.max(0, this.options.maxHeldBytes - this.heldBytes) : Number.MAX_SAFE_INTEGER;
  }

  /** Most deliveries of `origin` to hold at once, from its recent pace (an origin not seen yet: the slowest pace). */
  originLimit(origin?: string): number {
    const pace = Math.max(1, (origin === undefined ? undefined : this.origins.get(origin)?.paceMs) ?? this.options.slowestAttemptMs);
    const perSlot = Math.max(MIN_HELD_PER_SLOT, Math.floor(this.options.waitBudgetMs / Math.min(pace, this.options.slowestAttemptMs)));
    return Math.min(this.options.maxHeld, this.options.originConcurrency * perSlot);
  }

  /** How many more deliveries of `origin` may be held. */
  originRoom(origin: string): number {
    const state = this.origins.get(origin);
    const held = state ? state.waiting.length + state.inFlight : 0;
    return Math.max(0, this.originLimit(origin) - held);
  }

  /** Origins that may take no more deliveries now, and the room of those that hold some. */
  originRooms(): { full: string[]; rooms: Record<string, number> } {
    const full: string[] = [];
    const rooms: Record<string, number> = {};
    for (const origin of this.origins.keys()) {
      const room = this.originRoom(origin);
      rooms[origin] = room;
      if (!room) full.push(origin);
    }
    return { full, rooms };
  }

  /** Takes a delivery in; false (and nothing changes) if one with its id is already held. */
  push(item: T): boolean {
    if (this.held.has(item.id)) return false;
    this.held.set(item.id, item);
    this.heldBytes += item.bytes;
    const state = this.stateOf(item.origin);
    if (!state.waiting.length) this.rotation.push(item.origin);
    state.waiting.push(item);
    return true;
  }

  /** The next delivery to attempt (now counted as under way), or undefined when none may start. */
  next(): T | undefined {
    if (this.inFlightCount >= this.options.concurrency) return undefined;
    for (let turn = 0; turn < this.rotation.length; turn++) {
      const origin = this.rotation.shift()!;
      const state = this.origins.get(origin)!;
      if (state.inFlight >= this.options.originConcurrency) {
        this.rotation.push(origin);
        continue;
      }
      const item = state.waiting.shift()!;
      if (state.waiting.length) this.rotation.push(origin);
      state.inFlight++;
      this.inFlightCount++;
      return item;
    }
    return undefined;
  }

  /** Deliveries waiting (not under way) that `drop` selects are removed and returned. */
  takeWaiting(drop: (item: T) => boolean): T[] {
    const taken: T[] = [];
    for (const [origin, state] of this.origins) {
      const keep: T[] = [];
      for (const item of state.waiting) (drop(item) ? taken : keep).push(item);
      if (keep.length === state.waiting.length) continue;
      state.waiting = keep;
      if (!keep.length) this.rotation.splice(this.rotation.indexOf(origin), 1);
    }
    for (const item of taken) this.forget(item);
    return taken;
  }

  /**
   * Marks an attempt as ended: frees its slots and learns its origin's pace. `durationMs` undefined: no
   * attempt was made after all.
   */
  done(item: T, durationMs?: number): void {
    const state = this.origins.get(item.origin);
    if (!state || !this.held.has(item.id)) return;
    state.inFlight--;
    this.inFlightCount--;
    if (durationMs !== undefined) state.paceMs += PACE_WEIGHT * (durationMs - state.paceMs);
    this.forget(item);
    if (++this.ended % PRUNE_EVERY === 0) this.prune();
  }

  private forget(item: T): void {
    this.held.delete(item.id);
    this.heldBytes -= item.bytes;
  }

  private stateOf(origin: string): Origin<T> {
    let state = this.origins.get(origin);
    if (!state) {
      state = { waiting: [], inFlight: 0, paceMs: this.options.slowestAttemptMs };
      this.origins.set(origin, state);
    }
    return state;
  }

  /** Past MAX_ORIGINS_KEPT origins, forgets the idle ones (each starts again from the slowest pace). */
  private prune(): void {
    if (this.origins.size < MAX_ORIGINS_KEPT) return;
    for (const [origin, state] of this.origins) if (!state.waiting.length && !state.inFlight) this.origins.delete(origin);
  }
}
