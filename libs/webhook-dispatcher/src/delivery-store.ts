import { type DeliveryDeadEvent, Topic } from '@workline/contracts';
import { type DbPool, type Sql, statement } from '@workline/db';
import { enqueueEvents } from '@workline/messaging';
import { REQUEST_ID_KAFKA_HEADER } from '@workline/observability';

/** What an attempt needs of a delivery (everything but its state). */
export interface DeliveryRow {
  id: string;
  account_id: string;
  workstream_id: string | null;
  task_id: string | null;
  run_id: string | null;
  event_type: string;
  /** Never holds credentials (they are in sealed_authorization). */
  url: string;
  body: string;
  signing: string;
  sealed_secret: string | null;
  sealed_authorization: string | null;
  request_id: string | null;
}

/** A delivery this instance holds a lease on, with the state its outcome builds on. */
export interface LeasedRow extends DeliveryRow {
  lease_token: string;
  attempt_count: number;
  round_failures: number;
}

/** One attempt's outcome and the delivery's next state as the retry policy decided it. */
export interface OutcomeRow {
  id: string;
  lease_token: string;
  attempted_at: string;
  duration_ms: number;
  status_code: number | null;
  error: string | null;
  response_excerpt: string | null;
  success: boolean;
  status: 'pending' | 'delivered' | 'dead';
  round_failures: number;
  wait_ms: number | null;
  /** What a DeliveryDeadEvent says, when `status` is dead. */
  dead?: DeliveryDeadEvent;
  request_id: string | null;
}

/** An outcome that was written: the attempt's number and the delivery's state now. */
export interface RecordedRow {
  id: string;
  attempt_count: number;
  status: string;
}

/**
 * The origin (scheme://host[:port]) of a stored URL, the same text as ORIGIN_SQL computes: stored URLs are
 * normalised (lower-case scheme and host, no default port, a path), so it equals `new URL(url).origin`.
 */
export function originOf(url: string): string {
  const hostStart = url.indexOf('://') + 3;
  const end = url.slice(hostStart).search(/[/?#]/);
  return end < 0 ? url : url.slice(0, hostStart + end);
}

const ORIGIN_SQL = `substring(url from '^[^:/?#]+://[^/?#]*')`;

/** The rows travel as one jsonb parameter (as the outbox's bulk insert does): one statement, any number of rows. */
const INTAKE = statement(
  'delivery_intake',
  `
  insert into delivery (id, account_id, workstream_id, task_id, run_id, event_type, url, body, signing, sealed_secret,
    sealed_authorization, request_id, status, next_attempt_at, lease_token, lease_until)
  select id, account_id, workstream_id, task_id, run_id, event_type, url, body, signing, sealed_secret,
    sealed_authorization, request_id, 'pending', now(),
    case when claim then $2 end, case when claim then now() + $3 * interval '1 millisecond' end
  from jsonb_to_recordset($1::jsonb) as x(id text, account_id text, workstream_id text, task_id text, run_id text,
    event_type text, url text, body text, signing text, sealed_secret text, sealed_authorization text, request_id text, claim boolean)
  on conflict (id) do nothing
  returning id, lease_token is not null as claimed`,
);

/**
 * Due deliveries (pending, next attempt reached, no live lease), oldest due first, at most each origin's room
 * and the bytes the queue has room for (the first row always, whatever its size); the rows taken get this
 * claim's lease. Origin by origin: the pending origins are walked on their index (one probe each, skipping
 * the origins that may take no more), and each gives at most its room of due rows, skipping rows another
 * claim has locked. A scan in due order across origins had to read past every due row of a saturated origin
 * on every poll: 405 ms for a backlog of 300,000 (docs/decisions.md, "Claiming origin by origin").
 */
export const CLAIM_DUE = statement(
  'delivery_claim_due',
  `
  with recursive origins(origin) as (
    (select ${ORIGIN_SQL} from delivery where status = 'pending' order by 1 limit 1)
    union all
    select (select ${ORIGIN_SQL} from delivery d where d.status = 'pending' and ${ORIGIN_SQL} > o.origin order by 1 limit 1)
    from origins o where o.origin is not null
  ), open_origins as (
    select origin, least($1, coalesce(($4::jsonb ->> origin)::int, $5)) as room
    from origins
    where origin is not null and origin <> all (select jsonb_array_elements_text($3::jsonb))
  ), due as (
    select d.id, d.next_attempt_at, d.bytes
    from open_origins o
    cross join lateral (
      select id, next_attempt_at, octet_length(body) as bytes
      from delivery
      where status = 'pending' and ${ORIGIN_SQL} = o.origin and next_attempt_at <= now()
        and (lease_until is null or lease_until < now())
      order by next_attempt_at
      limit o.room
      for update skip locked
    ) d
  ), ranked as (
    select id,
      sum(bytes) over (order by next_attempt_at, id) as running_bytes,
      row_number() over (order by next_attempt_at, id) as nth
    from due
  )
  update delivery d set lease_token = $6, lease_until = now() + $7 * interval '1 millisecond'
  -- An array, not a join: the planner cannot tell how few rows the walk gives, and joined a scan of the whole table.
  where d.id = any (array(select id from ranked where (running_bytes <= $2 or nth = 1) and nth <= $1))
  returning d.id, d.account_id, d.workstream_id, d.task_id, d.run_id, d.event_type, d.url, d.body, d.signing,
    d.sealed_secret, d.sealed_authorization, d.request_id, d.lease_token, d.attempt_count, d.round_failures`,
);

/**
 * Every outcome whose delivery still carries the lease that made the attempt: the attempt row and the
 * delivery's next state, in one statement. A redelivery asked for during the attempt is due now, as it
 * would have been had it come after: a fresh round when the attempt left the delivery delivered or dead, its
 * retry count kept when it left it pending (docs/webhooks.md, "redeliver"). An outcome whose lease was lost
 * (another instance owns the delivery now) matches no row and is dropped.
 */
export const RECORD = statement(
  'delivery_record',
  `
  with outcome as (
    select * from jsonb_to_recordset($1::jsonb) as o(id text, lease_token text, attempted_at timestamptz, duration_ms int,
      status_code int, error text, response_excerpt text, success boolean, status text, round_failures int, wait_ms int)
  ), recorded as (
    update delivery d set attempt_count = d.attempt_count + 1, last_status_code = o.status_code, last_error = o.error,
      lease_token = null, lease_until = null, redeliver_requested = false, updated_at = now(),
      status = case when d.redeliver_requested then 'pending' else o.status end,
      round_failures = case when d.redeliver_requested and o.status <> 'pending' then 0 else o.round_failures end,
      next_attempt_at = case when d.redeliver_requested then now() when o.wait_ms is null then null
        else now() + o.wait_ms * interval '1 millisecond' end,
      delivered_at = case when o.success then now() else d.delivered_at end,
      dead_at = case when o.status = 'dead' and not d.redeliver_requested then now() else null end
    from outcome o
    -- The ids as an array too: a condition on the delivery alone, which its primary key serves, however few
    -- rows the planner takes the table to hold (with a join alone it may read the table whole to join it).
    where d.id = any (array(select id from outcome)) and d.id = o.id and d.lease_token = o.lease_token
    returning d.id, d.attempt_count, d.status
  ), attempts as (
    insert into delivery_attempt (delivery_id, number, attempted_at, duration_ms, status_code, error, response_excerpt, instance_id)
    select r.id, r.attempt_count, o.attempted_at, o.duration_ms, o.status_code, o.error, o.response_excerpt, $2
    from recorded r join outcome o on o.id = r.id
  )
  select id, attempt_count, status from recorded`,
);

/**
 * Gives leases back without an attempt (shutting down, or a delivery that waited too long for its turn):
 * the deliveries are due again for any instance. A redelivery asked for meanwhile is served by that attempt.
 */
const RELEASE = statement(
  'delivery_release',
  `
  with lease as (select * from jsonb_to_recordset($1::jsonb) as r(id text, lease_token text))
  update delivery d set lease_token = null, lease_until = null, redeliver_requested = false
  from lease r
  where d.id = any (array(select id from lease)) and d.id = r.id and d.lease_token = r.lease_token
  returning d.id`,
);

/** RECORD's outcome rows ($1): each outcome without what only the dispatcher reads (its dead event, its request id). */
export const outcomeRowsJson = (outcomes: OutcomeRow[]): string =>
  JSON.stringify(outcomes.map(({ dead: _dead, request_id: _requestId, ...row }) => row));

/**
 * The dispatcher's statements: intake with its claim, claims of due deliveries, outcomes, releases, as
 * prepared statements on the app's pool (DbPool): through Prisma's raw queries each cost ~0.6 ms of the
 * dispatcher's CPU, here ~0.05 ms (docs/decisions.md, "Webhook dispatch").
 */
export class DeliveryStore {
  constructor(
    private readonly db: DbPool,
    private readonly options: { source: string; instanceId: string; leaseMs: number },
  ) {}

  /**
   * Stores new deliveries, due now, leasing those marked `claim` to this instance under `token`; a
   * delivery id stored before is left as it is. Returns the rows stored now and whether each was leased.
   */
  async intake(rows: (DeliveryRow & { claim: boolean })[], token: string): Promise<{ id: string; claimed: boolean }[]> {
    if (!rows.length) return [];
    return this.db.query<{ id: string; claimed: boolean }>(INTAKE, [JSON.stringify(rows), token, this.options.leaseMs]);
  }

  /** Leases up to `limit` due deliveries to this instance (see CLAIM_DUE). */
  async claimDue(request: {
    limit: number;
    maxBytes: number;
    fullOrigins: string[];
    originRooms: Record<string, number>;
    defaultRoom: number;
    token: string;
  }): Promise<LeasedRow[]> {
    if (request.limit <= 0) return [];
    return this.db.query<LeasedRow>(CLAIM_DUE, [
      request.limit,
      request.maxBytes,
      JSON.stringify(request.fullOrigins),
      JSON.stringify(request.originRooms),
      request.defaultRoom,
      request.token,
      this.options.leaseMs,
    ]);
  }

  /**
   * Writes outcomes (see RECORD). When any may make its delivery dead, the DeliveryDeadEvents of those that
   * did are written in the same transaction (outbox, one statement), each under the request id of its
   * delivery. Returns the outcomes written, with the delivery's new state.
   */
  async record(outcomes: OutcomeRow[]): Promise<RecordedRow[]> {
    if (!outcomes.length) return [];
    const values = [outcomeRowsJson(outcomes), this.options.instanceId];
    if (!outcomes.some((outcome) => outcome.status === 'dead')) return this.db.query<RecordedRow>(RECORD, values);
    return this.db.transaction(async (sql) => {
      const recorded = await sql.query<RecordedRow>(RECORD, values);
      const byId = new Map(outcomes.map((outcome) => [outcome.id, outcome]));
      await this.enqueueDead(
        sql,
        recorded.filter((row) => row.status === 'dead').map((row) => byId.get(row.id)!),
      );
      return recorded;
    });
  }

  private async enqueueDead(sql: Sql, dead: OutcomeRow[]): Promise<void> {
    await enqueueEvents(
      sql,
      this.options.source,
      Topic.DeliveryDead,
      dead.map((outcome) => ({
        data: outcome.dead!,
        key: outcome.id,
        // The relay publishes each under the request that caused its delivery.
        headers: outcome.request_id ? { [REQUEST_ID_KAFKA_HEADER]: outcome.request_id } : undefined,
      })),
    );
  }

  /** Gives these leases back (see RELEASE); returns how many were still held. */
  async release(leases: { id: string; lease_token: string }[]): Promise<number> {
    if (!leases.length) return 0;
    return (await this.db.query(RELEASE, [JSON.stringify(leases.map(({ id, lease_token }) => ({ id, lease_token })))])).length;
  }
}
