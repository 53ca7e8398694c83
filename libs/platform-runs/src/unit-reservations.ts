import { type Batcher, type DbPool, statement } from '@workline/db';
import { randomUUID } from 'node:crypto';
import type { PlatformRunsClock, PlatformRunsSettings } from './platform-runs.settings';
import { UnitStatus } from './run-views';

/** A unit this instance holds reserved: it may lease it to a worker while the reservation's token is still on the row. */
export interface ReservedUnit {
  run_id: string;
  seq: number;
  line_id: string;
  input: Record<string, unknown>;
  /** The token of the claim that reserved it (reserved_by). */
  token: string;
  /** When the reservation ends (ms since the epoch, by the platform clock). */
  until: number;
}

interface ClaimedRow {
  run_id: string;
  seq: number;
  line_id: string;
  input: Record<string, unknown>;
  created_at: Date;
}

/**
 * Units free to hand out: not leased (or the lease ended) and not reserved (or the reservation ended).
 * SKIP LOCKED: a claim passes over rows another transaction is taking instead of queueing behind it.
 */
const claim = (name: string, lineFilter: string, free: string) =>
  statement(
    name,
    `with candidate as (
       select run_id, seq from platform_unit
       where status = '${UnitStatus.Processing}' ${lineFilter}
         and (lease_expires_at is null or lease_expires_at < $2)
         and ${free}
       order by created_at, run_id, seq
       limit $3
       for update skip locked
     )
     update platform_unit u set reserved_by = $1, reserved_until = $4
     from candidate c
     where u.run_id = c.run_id and u.seq = c.seq
     returning u.run_id, u.seq, u.line_id, u.input, u.created_at`,
  );

const UNRESERVED = '(reserved_until is null or reserved_until < $2)';
/** Units other claims hold reserved: taken only when nothing else is left, so no worker waits on a unit an instance sits on. */
const RESERVED = 'reserved_until >= $2 and reserved_by <> $1';

/** The claim statements: free units first, then units other claims hold; of any line, or of one. */
export const UNIT_CLAIMS = {
  any: {
    free: claim('platform_units_claim', 'and $5::text is null', UNRESERVED),
    taken: claim('platform_units_claim_reserved', 'and $5::text is null', RESERVED),
  },
  line: {
    free: claim('platform_units_claim_line', 'and line_id = $5', UNRESERVED),
    taken: claim('platform_units_claim_line_reserved', 'and line_id = $5', RESERVED),
  },
};

const RELEASE = statement(
  'platform_units_release',
  `update platform_unit set reserved_by = null, reserved_until = null where reserved_by = any($1::text[])`,
);

const byAge = (a: ClaimedRow, b: ClaimedRow) =>
  a.created_at.getTime() - b.created_at.getTime() || (a.run_id < b.run_id ? -1 : a.run_id > b.run_id ? 1 : a.seq - b.seq);

/**
 * The units an instance of platform-runs holds reserved, handed out from memory (docs/work-api.md,
 * "Claims and completions in batches"). A `next` that finds none waits for a claim: the requests that queued in the same
 * turn of the event loop (or during the claim under way) share one claim statement, which also reserves
 * `unitClaimAhead` more for the requests to come. A reservation is a hint between instances, not a lock:
 * the lease is written only while the claim's token is still on the row, so a unit reserved twice (its
 * reservation ended, or another instance took it over when nothing else was left) is leased once.
 */
export class UnitReservations {
  /** Reserved units by line filter ('' = any line), oldest first. */
  private readonly held = new Map<string, ReservedUnit[]>();
  private readonly claims: Batcher<string, ReservedUnit | null>;

  constructor(
    private readonly db: DbPool,
    private readonly settings: PlatformRunsSettings,
    private readonly clock: PlatformRunsClock,
  ) {
    this.claims = db.batcher('unit_claims', (keys: string[]) => this.claim(keys));
  }

  /** A reserved unit of the line ('' = any), from memory or a claim; null when no unit is free. */
  take(lineKey: string): Promise<ReservedUnit | null> {
    const unit = this.fromMemory(lineKey);
    return unit ? Promise.resolve(unit) : this.claims.submit(lineKey);
  }

  /** Forgets the units of a run this instance holds (its lease failed: the run was likely aborted). */
  forgetRun(runId: string): void {
    for (const [key, units] of this.held)
      this.held.set(
        key,
        units.filter((unit) => unit.run_id !== runId),
      );
  }

  /** Puts back what this instance holds (a graceful stop), so it does not wait for the reservations to end. */
  async releaseAll(): Promise<void> {
    const tokens = [...new Set([...this.held.values()].flat().map((unit) => unit.token))];
    this.held.clear();
    if (tokens.length) await this.db.query(RELEASE, [tokens]);
  }

  private fromMemory(lineKey: string): ReservedUnit | undefined {
    const units = this.held.get(lineKey);
    const now = this.clock.now();
    while (units?.length) {
      const unit = units.shift()!;
      // Past its reservation another instance may have it: leasing would likely fail, so take the next.
      if (unit.until > now) return unit;
    }
    return undefined;
  }

  private async claim(keys: string[]): Promise<(ReservedUnit | null)[]> {
    const waiting = new Map<string, number[]>();
    keys.forEach((key, index) => waiting.set(key, [...(waiting.get(key) ?? []), index]));
    const results: (ReservedUnit | null)[] = keys.map(() => null);
    await Promise.all(
      [...waiting].map(async ([key, indexes]) => {
        const units: ReservedUnit[] = [];
        // Units an earlier claim reserved ahead serve the requests that queued while it ran.
        for (let unit: ReservedUnit | undefined; units.length < indexes.length && (unit = this.fromMemory(key));) units.push(unit);
        const wanted = indexes.length - units.length;
        if (wanted > 0) {
          const claimed = await this.reserve(key, wanted + this.settings.unitClaimAhead, wanted);
          units.push(...claimed.slice(0, wanted));
          if (claimed.length > wanted) this.held.set(key, [...(this.held.get(key) ?? []), ...claimed.slice(wanted)]);
        }
        indexes.forEach((index, i) => (results[index] = units[i] ?? null));
      }),
    );
    return results;
  }

  /** Reserves up to `count` free units, oldest first; if fewer than `needed` were free, takes over units other claims hold. */
  private async reserve(lineKey: string, count: number, needed: number): Promise<ReservedUnit[]> {
    const statements = lineKey ? UNIT_CLAIMS.line : UNIT_CLAIMS.any;
    const now = this.clock.now();
    const until = now + this.settings.unitReservationSeconds * 1000;
    const token = `${this.settings.instanceId}:${randomUUID()}`;
    const values = (limit: number) => [token, new Date(now), limit, new Date(until), lineKey || null];
    // Oldest first along the claim index, however few Processing units the statistics know of.
    const rows = await this.db.queryAlongIndexes<ClaimedRow>(statements.free, values(count));
    if (rows.length < needed) rows.push(...(await this.db.queryAlongIndexes<ClaimedRow>(statements.taken, values(needed - rows.length))));
    return rows.sort(byAge).map((row) => ({ run_id: row.run_id, seq: row.seq, line_id: row.line_id, input: row.input, token, until }));
  }
}
