import { Injectable } from '@nestjs/common';
import {
  afterCursor,
  type DeliveryRequestedEvent,
  type PlatformApi,
  type RunAbortRequestedEvent,
  ServiceName,
  Topic,
} from '@workline/contracts';
import { type Batcher, DbPool, type Prisma, PrismaService, type ProductionRun, type Sql, statement } from '@workline/db';
import { enqueueEvent, enqueueEvents, OutboxRelay, type Tx } from '@workline/messaging';
import { type RunRecord, RunStatus, type UnitRecord, UnitStatus } from './run-views';

/** Runs with more units than this are inserted on their own rather than with the runs created at the same time. */
const BATCHED_RUN_UNITS = 1_000;

const SELECT_RUN_BY_KEY = statement(
  'platform_run_by_idempotency_key',
  `select id, line_id as "lineId", status, created_at as "createdAt", processed_at as "processedAt", idempotency_hash as "idempotencyHash"
   from platform_run where account_id = $1 and idempotency_key = $2`,
);

/** A run as creation inserts it, with its units (their order is their seq). */
export interface NewRun {
  id: string;
  account_id: string;
  line_id: string;
  api: PlatformApi;
  callback_url: string | null;
  callback_authorization: string | null;
  unit_count: number;
  created_at: string;
  idempotency_key: string | null;
  idempotency_hash: string | null;
  units: unknown[];
}

/**
 * Runs and all their units in one statement (one commit), unit order kept by WITH ORDINALITY. A run whose
 * Idempotency-Key is already taken in its account is skipped with its units, and not returned.
 */
const INSERT_RUNS = statement(
  'platform_runs_insert',
  `with runs as (
     insert into platform_run (id, account_id, line_id, api, status, callback_url, callback_authorization, unit_count, pending_units,
       created_at, idempotency_key, idempotency_hash)
     select id, account_id, line_id, api, '${RunStatus.Processing}', callback_url, callback_authorization, unit_count, unit_count,
       created_at, idempotency_key, idempotency_hash
     from jsonb_to_recordset($1::jsonb) as x(id text, account_id text, line_id text, api text, callback_url text,
       callback_authorization text, unit_count int, created_at timestamptz, idempotency_key text, idempotency_hash text)
     on conflict (account_id, idempotency_key) do nothing
     returning id, line_id, created_at
   ), units as (
     insert into platform_unit (run_id, seq, line_id, input, status, created_at)
     select runs.id, (unit.ordinality - 1)::int, runs.line_id, unit.value, '${UnitStatus.Processing}', runs.created_at
     from runs
     join jsonb_to_recordset($1::jsonb) as x(id text, units jsonb) on x.id = runs.id
     cross join lateral jsonb_array_elements(x.units) with ordinality as unit(value, ordinality)
   )
   select id from runs`,
);

/** What reading a run needs of it (its account, for the ownership check). */
const SELECT_RUN = statement(
  'platform_run_by_id',
  `select id, account_id as "accountId", line_id as "lineId", status, created_at as "createdAt", processed_at as "processedAt",
     unit_count as "unitCount"
   from platform_run where id = $1`,
);

export interface OwnedRun extends RunRecord {
  accountId: string;
  unitCount: number;
}

/** A run's units in order, a page of them when offset/limit are given (NULL: from the first, all). */
const SELECT_UNITS = statement(
  'platform_run_units',
  `select input, output, status, created_at as "createdAt", processed_at as "processedAt"
   from platform_unit where run_id = $1 order by seq offset $2 limit $3`,
);

const UNIT_FIELDS = { input: true, output: true, status: true, createdAt: true, processedAt: true } as const;

export interface RunRow extends RunRecord {
  accountId: string;
  api: string;
  callbackUrl: string | null;
  callbackAuthorization: string | null;
  unitCount: number;
}

const SELECT_CALLBACK_RUNS = statement(
  'platform_callback_runs',
  `select id, account_id as "accountId", line_id as "lineId", api, status, callback_url as "callbackUrl",
     callback_authorization as "callbackAuthorization", unit_count as "unitCount", created_at as "createdAt", processed_at as "processedAt"
   from platform_run where id = any($1::text[]) and callback_url is not null`,
);

const SELECT_CALLBACK_UNITS = statement(
  'platform_callback_units',
  `select run_id as "runId", input, output, status, created_at as "createdAt", processed_at as "processedAt"
   from platform_unit where run_id = any($1::text[]) order by run_id, seq`,
);

/** A run as an abort request finds it, locked. */
export interface RunToAbort {
  account_id: string;
  status: string;
  abort_requested_at: Date | null;
}

export interface RunListFilter {
  accountId?: string;
  lineId?: string;
  status?: string;
  cursor?: string;
}

const LISTED_RUN_COLUMNS = {
  id: true,
  accountId: true,
  lineId: true,
  api: true,
  status: true,
  unitCount: true,
  pendingUnits: true,
  abortRequestedAt: true,
  createdAt: true,
  processedAt: true,
} as const;

export type ListedRun = Pick<ProductionRun, keyof typeof LISTED_RUN_COLUMNS>;

/** A delivery to write to the outbox, with the request id of the request that caused it. */
export interface DeliveryToEnqueue {
  data: DeliveryRequestedEvent;
  key: string;
  headers?: Record<string, string>;
}

/**
 * The run and unit tables of platform-runs and its outbox. Runs created at the same time are inserted
 * together (group commit, docs/decisions.md); the methods taking a Tx or Sql work in the caller's transaction.
 */
@Injectable()
export class RunsRepository {
  private readonly inserts: Batcher<NewRun, boolean>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DbPool,
    private readonly relay: OutboxRelay,
  ) {
    this.inserts = db.batcher('runs', (runs: NewRun[]) => this.insertRuns(runs));
  }

  async findByIdempotencyKey(accountId: string, idempotencyKey: string): Promise<(RunRecord & { idempotencyHash: string | null }) | null> {
    return (await this.db.query<RunRecord & { idempotencyHash: string | null }>(SELECT_RUN_BY_KEY, [accountId, idempotencyKey]))[0] ?? null;
  }

  async lineAccount(lineId: string): Promise<string | undefined> {
    return (await this.prisma.productionLine.findUnique({ where: { id: lineId }, select: { accountId: true } }))?.accountId;
  }

  /** Inserts a run with its units; false when its Idempotency-Key was taken (nothing inserted). */
  async insert(run: NewRun): Promise<boolean> {
    return run.units.length > BATCHED_RUN_UNITS ? (await this.insertRuns([run]))[0] : this.inserts.submit(run);
  }

  /** Inserts runs with their units; for each, whether it was inserted (false: its Idempotency-Key was taken). */
  private async insertRuns(runs: NewRun[]): Promise<boolean[]> {
    const inserted = new Set((await this.db.query<{ id: string }>(INSERT_RUNS, [JSON.stringify(runs)])).map((row) => row.id));
    return runs.map((run) => inserted.has(run.id));
  }

  async find(runId: string): Promise<OwnedRun | undefined> {
    const [run] = await this.db.query<OwnedRun>(SELECT_RUN, [runId]);
    return run;
  }

  /**
   * A run's units in order, a page of them when offset/limit are given (null: from the first, all). Raw SQL
   * on the shared pool: reading 10,000 units through Prisma cost more than the rest of the read.
   */
  async units(runId: string, offset: number | null, limit: number | null): Promise<UnitRecord[]> {
    return this.db.query<UnitRecord>(SELECT_UNITS, [runId, offset, limit]);
  }

  /**
   * In one transaction: locks the run, asks `accept` whether to record an abort request (it may throw),
   * and if so records it with its event. True when it was recorded.
   */
  async requestAbort(runId: string, accept: (run: RunToAbort | undefined) => boolean, event: RunAbortRequestedEvent): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const [run] = await tx.$queryRaw<RunToAbort[]>`
        select account_id, status, abort_requested_at from platform_run where id = ${runId} for update`;
      if (!accept(run)) return false;
      await tx.productionRun.update({ where: { id: runId }, data: { abortRequestedAt: new Date() } });
      await enqueueEvent(tx, ServiceName.PlatformRuns, Topic.RunAbortRequested, event, { key: runId });
      return true;
    });
  }

  /** Aborts every unit of the run that is not processed yet, leased ones included; answers how many. */
  async abortUnits(tx: Tx, runId: string): Promise<number> {
    return tx.$executeRaw`
      update platform_unit set status = ${UnitStatus.Aborted}, output = null, processed_at = now(),
        lease_assignment_id = null, lease_expires_at = null
      where run_id = ${runId} and status = ${UnitStatus.Processing}`;
  }

  /** Counts finished units against a Processing run (the last one makes it Processed); its status after, if it was Processing. */
  async countFinished(tx: Tx, runId: string, count: number): Promise<string | undefined> {
    const [run] = await tx.$queryRaw<{ pending_units: number; status: string }[]>`
      update platform_run set pending_units = pending_units - ${count},
        status = case when pending_units - ${count} <= 0 then ${RunStatus.Processed} else status end,
        processed_at = case when pending_units - ${count} <= 0 then now() else processed_at end
      where id = ${runId} and status = ${RunStatus.Processing}
      returning pending_units, status`;
    return run?.status;
  }

  async runOf(tx: Tx, runId: string): Promise<RunRow> {
    return (await tx.productionRun.findUniqueOrThrow({ where: { id: runId } })) as RunRow;
  }

  async unitsOf(tx: Tx, runId: string): Promise<UnitRecord[]> {
    return tx.productionUnit.findMany({ where: { runId }, orderBy: { seq: 'asc' }, select: UNIT_FIELDS });
  }

  async enqueueDelivery(tx: Tx, delivery: DeliveryToEnqueue): Promise<void> {
    await enqueueEvent(tx, ServiceName.PlatformRuns, Topic.DeliveryRequested, delivery.data, { key: delivery.key });
  }

  /** Of these runs, those with a callback URL. */
  async callbackRuns(sql: Sql, runIds: string[]): Promise<RunRow[]> {
    return sql.query<RunRow>(SELECT_CALLBACK_RUNS, [runIds]);
  }

  /** The units of these runs, in order within each run. */
  async unitsOfRuns(sql: Sql, runIds: string[]): Promise<(UnitRecord & { runId: string })[]> {
    return sql.query<UnitRecord & { runId: string }>(SELECT_CALLBACK_UNITS, [runIds]);
  }

  async enqueueDeliveries(sql: Sql, deliveries: DeliveryToEnqueue[]): Promise<void> {
    await enqueueEvents(sql, ServiceName.PlatformRuns, Topic.DeliveryRequested, deliveries);
  }

  /** Runs of every account, newest first (created_at, then id), for the admin API. */
  async list(filter: RunListFilter, take: number): Promise<ListedRun[]> {
    const where: Prisma.ProductionRunWhereInput[] = [];
    if (filter.accountId !== undefined) where.push({ accountId: filter.accountId });
    if (filter.lineId !== undefined) where.push({ lineId: filter.lineId });
    if (filter.status !== undefined) where.push({ status: filter.status });
    if (filter.cursor !== undefined) where.push(afterCursor(filter.cursor));
    return this.prisma.productionRun.findMany({
      where: { AND: where },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take,
      select: LISTED_RUN_COLUMNS,
    });
  }

  /** Tells the outbox relay that events were committed. */
  pokeRelay(): void {
    this.relay.poke();
  }
}
