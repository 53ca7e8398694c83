import { Inject, Injectable } from '@nestjs/common';
import { BlobReplies } from '@workline/blob-store';
import { CallbackUrlError, checkCallbackUrl } from '@workline/callback-url';
import {
  type DeliveryRequestedEvent,
  DomainError,
  ErrorCode,
  type JsonReply,
  type PlatformApi,
  type RunAbortRequest,
  type RunCreateReply,
  type RunCreateRequest,
  type RunGetRequest,
  keysetPage,
  RUN_PAGE_DEFAULT,
  type RunListRequest,
  type RunPage,
  type RunStatusValue,
  V3,
} from '@workline/contracts';
import { AlreadyCreated, createOnce, type IdempotencyStamp, ImmutableRowCache, type Sql, type PublicSurface } from '@workline/db';
import type { Tx } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { PLATFORM_RUNS_SETTINGS, type PlatformRunsSettings } from './platform-runs.settings';
import { parseBodyJson, parseRunRequest, runRequestErrors } from './run-request';
import { type RunRecord, RunStatus, type UnitRecord, v3Callback, v3Created, v3Polled, v4Created, v4Run } from './run-views';
import { type NewRun, type OwnedRun, type RunRow, RunsRepository } from './runs.repository';

export const ABORT_ACCEPTED = 'Abort accepted: units not processed yet will be aborted; read the run to follow its progress';
export const ALREADY_PROCESSED = 'The run is already processed and cannot be aborted';

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

/** Production runs (v4) and batches (v3): one domain, two presentations. */
@Injectable()
export class RunsService {
  private readonly secrets: SecretBox;
  /** Lines never change once created and are never deleted: the account of each, from memory. */
  private readonly lineAccounts = new ImmutableRowCache<string>();

  constructor(
    @Inject(RunsRepository) private readonly runs: PublicSurface<RunsRepository>,
    private readonly replies: BlobReplies,
    @Inject(PLATFORM_RUNS_SETTINGS) private readonly settings: PlatformRunsSettings,
  ) {
    this.secrets = new SecretBox(settings.secretsKey);
  }

  /**
   * Creates a run (v4) or batch (v3); with an Idempotency-Key, at most once per account and key
   * (createOnce): the same request again answers the original creation's view (status as created).
   * Without one, `requestId` (the RPC request's correlation id) keeps a replayed request from creating twice.
   */
  async create(request: RunCreateRequest, requestId?: string): Promise<RunCreateReply> {
    const { account_id: accountId, api } = request;
    const body = parseBodyJson(api, request.body_json);
    const { value, replayed } = await createOnce({
      key: request.idempotency_key,
      requestId,
      request: { api, body },
      find: (idempotencyKey) => this.runs.findByIdempotencyKey(accountId, idempotencyKey),
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
    const lineAccount = await this.lineAccounts.get(parsed.lineId, () => this.runs.lineAccount(parsed.lineId));
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
    // Another request with the key got there first: createOnce replays its run.
    if (!(await this.runs.insert(run)))
      throw new AlreadyCreated(`a run with Idempotency-Key ${stamp.idempotencyKey} exists for this account`);
    return created(api, {
      id: run.id,
      lineId: run.line_id,
      status: RunStatus.Processing,
      createdAt: new Date(run.created_at),
      processedAt: null,
    });
  }

  /** The run as JSON text: a 10,000-unit run is ~2 MB, which travels through the blob store (JsonReply). */
  /** Every account's runs, newest first, a page at a time (GET /admin/v1/runs). */
  async list(request: RunListRequest): Promise<RunPage> {
    const limit = request.limit ?? RUN_PAGE_DEFAULT;
    const filter = { accountId: request.account_id, lineId: request.line_id, status: request.status, cursor: request.cursor };
    const { page, next_cursor } = keysetPage(await this.runs.list(filter, limit + 1), limit);
    const runs = page.map((run) => ({
      id: run.id,
      account_id: run.accountId,
      line_id: run.lineId,
      api: run.api as PlatformApi,
      status: run.status as RunStatusValue,
      unit_count: run.unitCount,
      pending_units: run.pendingUnits,
      abort_requested: run.abortRequestedAt !== null,
      created_at: run.createdAt.toISOString(),
      processed_at: run.processedAt?.toISOString() ?? null,
    }));
    return { runs, next_cursor };
  }

  async get(request: RunGetRequest): Promise<JsonReply> {
    return this.replies.reply(JSON.stringify(await this.view(request)));
  }

  private async view(request: RunGetRequest): Promise<object> {
    const run = await this.ownedRun(request.api, request.account_id, request.run_id);
    const paged = request.units_offset !== undefined || request.units_limit !== undefined;
    const units = await this.runs.units(run.id, request.units_offset ?? null, request.units_limit ?? null);
    const view = request.api === 'v4' ? v4Run(run, units) : v3Polled(run, units);
    if (!paged) return view;
    return { ...view, units_page: { offset: request.units_offset ?? 0, limit: request.units_limit ?? null, total: run.unitCount } };
  }

  /** Accepts an abort (202): the units are aborted by `applyAbort`, from the event this writes. */
  async requestAbort(request: RunAbortRequest): Promise<{ message: string }> {
    const { run_id: runId, account_id: accountId } = request;
    const accepted = await this.runs.requestAbort(
      runId,
      (run) => {
        if (!run || run.account_id !== accountId) throw DomainError.notFound('Not found');
        if (run.status === RunStatus.Processed) throw new DomainError(ErrorCode.NotAllowed, ALREADY_PROCESSED);
        // A second abort while the first is under way is accepted again, without a second event.
        return !run.abort_requested_at;
      },
      { run_id: runId, account_id: accountId },
    );
    if (accepted) this.runs.pokeRelay();
    return { message: ABORT_ACCEPTED };
  }

  /** Aborts every unit of the run that is not processed yet, leased ones included. */
  async applyAbort(tx: Tx, runId: string): Promise<boolean> {
    const aborted = await this.runs.abortUnits(tx, runId);
    return aborted > 0 ? this.unitsFinished(tx, runId, aborted) : false;
  }

  /**
   * Counts finished units against the run; the last one makes it Processed and, when it has a callback
   * URL, writes the delivery in the same transaction. True when the run became Processed (poke the relay).
   */
  async unitsFinished(tx: Tx, runId: string, count: number): Promise<boolean> {
    const status = await this.runs.countFinished(tx, runId, count);
    if (status !== RunStatus.Processed) return false;
    await this.enqueueCallback(tx, runId);
    return true;
  }

  pokeRelay(): void {
    this.runs.pokeRelay();
  }

  private async enqueueCallback(tx: Tx, runId: string): Promise<void> {
    const run = await this.runs.runOf(tx, runId);
    if (!run.callbackUrl) return;
    await this.runs.enqueueDelivery(tx, { data: callbackOf(run, await this.runs.unitsOf(tx, runId)), key: run.id });
  }

  /**
   * The callbacks of runs that have just become Processed, inside the caller's raw-SQL transaction (the
   * work API's batched outcomes): one read of the runs, one of their units, one outbox insert.
   */
  async enqueueCallbacks(sql: Sql, processed: { id: string; headers?: Record<string, string> }[]): Promise<void> {
    if (!processed.length) return;
    const runs = await this.runs.callbackRuns(
      sql,
      processed.map((run) => run.id),
    );
    if (!runs.length) return;
    const units = new Map<string, UnitRecord[]>(runs.map((run) => [run.id, []]));
    for (const unit of await this.runs.unitsOfRuns(
      sql,
      runs.map((run) => run.id),
    ))
      units.get(unit.runId)!.push(unit);
    const headers = new Map(processed.map((run) => [run.id, run.headers]));
    await this.runs.enqueueDeliveries(
      sql,
      runs.map((run) => ({
        data: callbackOf(run, units.get(run.id)!),
        key: run.id,
        ...(headers.get(run.id) ? { headers: headers.get(run.id) } : {}),
      })),
    );
  }

  private async ownedRun(api: PlatformApi, accountId: string, runId: string): Promise<OwnedRun> {
    const run = await this.runs.find(runId);
    if (api === 'v3') {
      if (!run) throw new DomainError(ErrorCode.NotFound, 'Task not found', undefined, V3.TaskNotFound);
      if (run.accountId !== accountId) throw new DomainError(ErrorCode.Forbidden, 'Task not owned by caller', undefined, V3.NotOwned);
      return run;
    }
    if (!run || run.accountId !== accountId) throw DomainError.notFound('Not found');
    return run;
  }
}
