import { Inject, Injectable } from '@nestjs/common';
import { BlobReplies } from '@workline/blob-store';
import { CallbackUrlError, checkCallbackUrl } from '@workline/callback-url';
import {
  DeliveryRequestedEvent,
  DomainError,
  ErrorCode,
  type JsonReply,
  type PlatformApi,
  type RunAbortRequest,
  type RunAbortRequestedEvent,
  type RunCreateReply,
  type RunCreateRequest,
  type RunGetRequest,
  Topic,
} from '@workline/contracts';
import {
  AlreadyCreated,
  type Batcher,
  createOnce,
  DbPool,
  type IdempotencyStamp,
  ImmutableRowCache,
  PrismaService,
  type Sql,
  statement,
} from '@workline/db';
import { enqueueEvent, enqueueEvents, OutboxRelay, type Tx } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { PLATFORM_OUTBOX_SOURCE, PLATFORM_SETTINGS, type PlatformSettings } from './platform.settings';
import { parseBodyJson, parseRunRequest, runRequestErrors, V3 } from './run-request';
import { type RunRecord, RunStatus, type UnitRecord, UnitStatus, v3Callback, v3Created, v3Polled, v4Created, v4Run } from './run-views';

/** Runs with more units than this are inserted on their own rather than with the runs created at the same time. */
const BATCHED_RUN_UNITS = 1_000;

const SELECT_RUN_BY_KEY = statement(
  'platform_run_by_idempotency_key',
  `select id, line_id as "lineId", status, created_at as "createdAt", processed_at as "processedAt", idempotency_hash as "idempotencyHash"
   from platform_run where account_id = $1 and idempotency_key = $2`,
);

/** A run as creation inserts it, with its units (their order is their seq). */
interface NewRun {
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
     insert into platform_run (id, account_id, line_id, api, status, callback_url, callback_authorization, unit_count, pending_units, created_at,
       idempotency_key, idempotency_hash)
     select id, account_id, line_id, api, '${RunStatus.Processing}', callback_url, callback_authorization, unit_count, unit_count, created_at,
       idempotency_key, idempotency_hash
     from jsonb_to_recordset($1::jsonb) as x(id text, account_id text, line_id text, api text, callback_url text, callback_authorization text,
       unit_count int, created_at timestamptz, idempotency_key text, idempotency_hash text)
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
  `select id, account_id as "accountId", line_id as "lineId", status, created_at as "createdAt", processed_at as "processedAt", unit_count as "unitCount"
   from platform_run where id = $1`,
);

interface OwnedRun extends RunRecord {
  accountId: string;
  unitCount: number;
}

/** A run's units in order, a page of them when offset/limit are given (NULL: from the first, all). */
const SELECT_UNITS = statement(
  'platform_run_units',
  `select input, output, status, created_at as "createdAt", processed_at as "processedAt"
   from platform_unit where run_id = $1 order by seq offset $2 limit $3`,
);

export const ABORT_ACCEPTED = 'Abort accepted: units not processed yet will be aborted; read the run to follow its progress';
export const ALREADY_PROCESSED = 'The run is already processed and cannot be aborted';

const UNIT_FIELDS = { input: true, output: true, status: true, createdAt: true, processedAt: true } as const;

interface RunRow extends RunRecord {
  accountId: string;
  api: string;
  callbackUrl: string | null;
  callbackAuthorization: string | null;
  unitCount: number;
}

const created = (api: PlatformApi, run: RunRecord): object => (api === 'v4' ? v4Created(run) : v3Created(run));

/** The callback of a processed run (one per run: its delivery id is the run's). */
function callbackOf(run: RunRow, units: UnitRecord[]): DeliveryRequestedEvent {
  const v4 = run.api === 'v4';
  return {
    delivery_id: `platform-run-${run.id}`,
    owner: { account_id: run.accountId },
    subject: { run_id: run.id },
    event_type: v4 ? 'run.processed' : 'batch.completed',
    url: run.callbackUrl!,
    body: JSON.stringify(v4 ? v4Run(run, units) : v3Callback(run, units)),
    signing: 'none',
    ...(run.callbackAuthorization ? { sealed_authorization: run.callbackAuthorization } : {}),
  };
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

/** Production runs (v4) and batches (v3): one domain, two presentations. */
@Injectable()
export class RunsService {
  private readonly secrets: SecretBox;
  /** Runs created at the same time are inserted together (group commit, docs/decisions.md). */
  private readonly inserts: Batcher<NewRun, boolean>;
  /** Lines never change once created and are never deleted: the account of each, from memory. */
  private readonly lineAccounts = new ImmutableRowCache<string>();

  constructor(
    private readonly prisma: PrismaService,
    private readonly db: DbPool,
    private readonly relay: OutboxRelay,
    private readonly replies: BlobReplies,
    @Inject(PLATFORM_SETTINGS) private readonly settings: PlatformSettings,
  ) {
    this.secrets = new SecretBox(settings.secretsKey);
    this.inserts = db.batcher('runs', (runs: NewRun[]) => this.insertRuns(runs));
  }

  /**
   * Creates a run (v4) or batch (v3); with an Idempotency-Key, at most once per account and key
   * (createOnce): the same request again answers the original creation's view (status as created).
   */
  async create(request: RunCreateRequest): Promise<RunCreateReply> {
    const { account_id: accountId, api } = request;
    const body = parseBodyJson(api, request.body_json);
    const { value, replayed } = await createOnce({
      key: request.idempotency_key,
      request: { api, body },
      find: async (idempotencyKey) =>
        (await this.db.query<RunRecord & { idempotencyHash: string | null }>(SELECT_RUN_BY_KEY, [accountId, idempotencyKey]))[0] ?? null,
      create: (stamp) => this.insert(request, body, stamp),
      replay: (row) => created(api, { ...row, status: RunStatus.Processing }),
      ...(api === 'v3' ? { v3Code: V3.DataInvalid } : {}),
    });
    return { view: value as object, replayed };
  }

  private async insert(request: RunCreateRequest, body: unknown, stamp: IdempotencyStamp): Promise<object> {
    const { api } = request;
    const parsed = parseRunRequest(api, body);
    const errors = runRequestErrors(api);
    const lineAccount = await this.lineAccounts.get(
      parsed.lineId,
      async () => (await this.prisma.productionLine.findUnique({ where: { id: parsed.lineId }, select: { accountId: true } }))?.accountId,
    );
    if (lineAccount !== request.account_id) throw errors.unknownLine(parsed.lineId);
    let callback: { url: string; authorization?: string } | undefined;
    if (parsed.callbackUrl !== undefined) {
      try {
        callback = await checkCallbackUrl(parsed.callbackUrl, this.settings.callbackPolicy);
      } catch (error) {
        if (error instanceof CallbackUrlError) throw errors.badData('callback_url', error.message);
        throw error;
      }
    }
    const run: NewRun = {
      id: randomUUID(),
      account_id: request.account_id,
      line_id: parsed.lineId,
      api,
      callback_url: callback?.url ?? null,
      callback_authorization: callback?.authorization ? this.secrets.seal(callback.authorization) : null,
      unit_count: parsed.units.length,
      created_at: new Date().toISOString(),
      idempotency_key: stamp.idempotencyKey,
      idempotency_hash: stamp.idempotencyHash,
      units: parsed.units,
    };
    const inserted = run.units.length > BATCHED_RUN_UNITS ? (await this.insertRuns([run]))[0] : await this.inserts.submit(run);
    // Another request with the key got there first: createOnce replays its run.
    if (!inserted) throw new AlreadyCreated(`a run with Idempotency-Key ${stamp.idempotencyKey} exists for this account`);
    return created(api, {
      id: run.id,
      lineId: run.line_id,
      status: RunStatus.Processing,
      createdAt: new Date(run.created_at),
      processedAt: null,
    });
  }

  /** Inserts runs with their units; for each, whether it was inserted (false: its Idempotency-Key was taken). */
  private async insertRuns(runs: NewRun[]): Promise<boolean[]> {
    const inserted = new Set((await this.db.query<{ id: string }>(INSERT_RUNS, [JSON.stringify(runs)])).map((row) => row.id));
    return runs.map((run) => inserted.has(run.id));
  }

  /** The run as JSON text: a 10,000-unit run is ~2 MB, which travels through the blob store (JsonReply). */
  async get(request: RunGetRequest): Promise<JsonReply> {
    return this.replies.reply(JSON.stringify(await this.view(request)));
  }

  private async view(request: RunGetRequest): Promise<object> {
    const run = await this.ownedRun(request.api, request.account_id, request.run_id);
    const paged = request.units_offset !== undefined || request.units_limit !== undefined;
    // Raw SQL on the shared pool: reading 10,000 units through Prisma cost more than the rest of the read.
    const units = await this.db.query<UnitRecord>(SELECT_UNITS, [run.id, request.units_offset ?? null, request.units_limit ?? null]);
    const view = request.api === 'v4' ? v4Run(run, units) : v3Polled(run, units);
    if (!paged) return view;
    return { ...view, units_page: { offset: request.units_offset ?? 0, limit: request.units_limit ?? null, total: run.unitCount } };
  }

  /** Accepts an abort (202): the units are aborted by `applyAbort`, from the event this writes. */
  async requestAbort(request: RunAbortRequest): Promise<{ message: string }> {
    const accepted = await this.prisma.$transaction(async (tx) => {
      const [run] = await tx.$queryRaw<{ account_id: string; status: string; abort_requested_at: Date | null }[]>`
        select account_id, status, abort_requested_at from platform_run where id = ${request.run_id} for update`;
      if (!run || run.account_id !== request.account_id) throw DomainError.notFound('Not found');
      if (run.status === RunStatus.Processed) throw new DomainError(ErrorCode.NotAllowed, ALREADY_PROCESSED);
      // A second abort while the first is under way is accepted again, without a second event.
      if (run.abort_requested_at) return false;
      await tx.productionRun.update({ where: { id: request.run_id }, data: { abortRequestedAt: new Date() } });
      const event: RunAbortRequestedEvent = { run_id: request.run_id, account_id: request.account_id };
      await enqueueEvent(tx, PLATFORM_OUTBOX_SOURCE, Topic.RunAbortRequested, event, { key: request.run_id });
      return true;
    });
    if (accepted) this.relay.poke();
    return { message: ABORT_ACCEPTED };
  }

  /** Aborts every unit of the run that is not processed yet, leased ones included. */
  async applyAbort(tx: Tx, runId: string): Promise<boolean> {
    const aborted = await tx.$executeRaw`
      update platform_unit set status = ${UnitStatus.Aborted}, output = null, processed_at = now(),
        lease_assignment_id = null, lease_expires_at = null
      where run_id = ${runId} and status = ${UnitStatus.Processing}`;
    return aborted > 0 ? this.unitsFinished(tx, runId, aborted) : false;
  }

  /**
   * Counts finished units against the run; the last one makes it Processed and, when it has a callback
   * URL, writes the delivery in the same transaction. True when the run became Processed (poke the relay).
   */
  async unitsFinished(tx: Tx, runId: string, count: number): Promise<boolean> {
    const [run] = await tx.$queryRaw<{ pending_units: number; status: string }[]>`
      update platform_run set pending_units = pending_units - ${count},
        status = case when pending_units - ${count} <= 0 then ${RunStatus.Processed} else status end,
        processed_at = case when pending_units - ${count} <= 0 then now() else processed_at end
      where id = ${runId} and status = ${RunStatus.Processing}
      returning pending_units, status`;
    if (!run || run.status !== RunStatus.Processed) return false;
    await this.enqueueCallback(tx, runId);
    return true;
  }

  pokeRelay(): void {
    this.relay.poke();
  }

  private async enqueueCallback(tx: Tx, runId: string): Promise<void> {
    const run = (await tx.productionRun.findUniqueOrThrow({ where: { id: runId } })) as RunRow;
    if (!run.callbackUrl) return;
    const units: UnitRecord[] = await tx.productionUnit.findMany({ where: { runId }, orderBy: { seq: 'asc' }, select: UNIT_FIELDS });
    await enqueueEvent(tx, PLATFORM_OUTBOX_SOURCE, Topic.DeliveryRequested, callbackOf(run, units), { key: run.id });
  }

  /**
   * The callbacks of runs that have just become Processed, inside the caller's raw-SQL transaction (the
   * work API's batched outcomes): one read of the runs, one of their units, one outbox insert.
   */
  async enqueueCallbacks(sql: Sql, processed: { id: string; headers?: Record<string, string> }[]): Promise<void> {
    if (!processed.length) return;
    const runs = await sql.query<RunRow>(SELECT_CALLBACK_RUNS, [processed.map((run) => run.id)]);
    if (!runs.length) return;
    const units = new Map<string, UnitRecord[]>(runs.map((run) => [run.id, []]));
    for (const unit of await sql.query<UnitRecord & { runId: string }>(SELECT_CALLBACK_UNITS, [runs.map((run) => run.id)]))
      units.get(unit.runId)!.push(unit);
    const headers = new Map(processed.map((run) => [run.id, run.headers]));
    await enqueueEvents(
      sql,
      PLATFORM_OUTBOX_SOURCE,
      Topic.DeliveryRequested,
      runs.map((run) => ({
        data: callbackOf(run, units.get(run.id)!),
        key: run.id,
        ...(headers.get(run.id) ? { headers: headers.get(run.id) } : {}),
      })),
    );
  }

  private async ownedRun(api: PlatformApi, accountId: string, runId: string): Promise<OwnedRun> {
    const [run] = await this.db.query<OwnedRun>(SELECT_RUN, [runId]);
    if (api === 'v3') {
      if (!run) throw new DomainError(ErrorCode.NotFound, 'Task not found', undefined, V3.TaskNotFound);
      if (run.accountId !== accountId) throw new DomainError(ErrorCode.Forbidden, 'Task not owned by caller', undefined, V3.NotOwned);
      return run;
    }
    if (!run || run.accountId !== accountId) throw DomainError.notFound('Not found');
    return run;
  }
}
