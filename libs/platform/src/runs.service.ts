import { Inject, Injectable } from '@nestjs/common';
import { CallbackUrlError, checkCallbackUrl } from '@workline/callback-url';
import {
  DeliveryRequestedEvent,
  DomainError,
  ErrorCode,
  type PlatformApi,
  type RunAbortRequest,
  type RunAbortRequestedEvent,
  type RunCreateReply,
  type RunCreateRequest,
  type RunGetRequest,
  Topic,
} from '@workline/contracts';
import { createOnce, type IdempotencyStamp, type Prisma, PrismaService } from '@workline/db';
import { enqueueEvent, OutboxRelay, type Tx } from '@workline/kafka';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { PLATFORM_OUTBOX_SOURCE, PLATFORM_SETTINGS, type PlatformSettings } from './platform.settings';
import { parseRunRequest, runRequestErrors, V3 } from './run-request';
import { type RunRecord, RunStatus, type UnitRecord, UnitStatus, v3Callback, v3Created, v3Polled, v4Created, v4Run } from './run-views';

/** Rows per multi-row insert: 11 columns each stays far below PostgreSQL's 65,535 bind parameters. */
const UNIT_INSERT_BATCH = 1_000;

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

/** Production runs (v4) and batches (v3): one domain, two presentations. */
@Injectable()
export class RunsService {
  private readonly secrets: SecretBox;

  constructor(
    private readonly prisma: PrismaService,
    private readonly relay: OutboxRelay,
    @Inject(PLATFORM_SETTINGS) private readonly settings: PlatformSettings,
  ) {
    this.secrets = new SecretBox(settings.secretsKey);
  }

  /**
   * Creates a run (v4) or batch (v3); with an Idempotency-Key, at most once per account and key
   * (createOnce): the same request again answers the original creation's view (status as created).
   */
  async create(request: RunCreateRequest): Promise<RunCreateReply> {
    const { account_id: accountId, api } = request;
    const { value, replayed } = await createOnce({
      key: request.idempotency_key,
      request: { api, body: request.body },
      find: (idempotencyKey) => this.prisma.productionRun.findUnique({ where: { accountId_idempotencyKey: { accountId, idempotencyKey } } }),
      create: (stamp) => this.insert(request, stamp),
      replay: (row) => created(api, { ...row, status: RunStatus.Processing }),
      ...(api === 'v3' ? { v3Code: V3.DataInvalid } : {}),
    });
    return { view: value as object, replayed };
  }

  private async insert(request: RunCreateRequest, stamp: IdempotencyStamp): Promise<object> {
    const { api } = request;
    const parsed = parseRunRequest(api, request.body);
    const errors = runRequestErrors(api);
    const line = await this.prisma.productionLine.findFirst({ where: { id: parsed.lineId, accountId: request.account_id }, select: { id: true } });
    if (!line) throw errors.unknownLine(parsed.lineId);
    let callback: { url: string; authorization?: string } | undefined;
    if (parsed.callbackUrl !== undefined) {
      try {
        callback = await checkCallbackUrl(parsed.callbackUrl, this.settings.callbackPolicy);
      } catch (error) {
        if (error instanceof CallbackUrlError) throw errors.badData('callback_url', error.message);
        throw error;
      }
    }
    const id = randomUUID();
    const createdAt = new Date();
    const run = await this.prisma.$transaction(
      async (tx) => {
        const row = await tx.productionRun.create({
          data: {
            id,
            accountId: request.account_id,
            lineId: parsed.lineId,
            api,
            status: RunStatus.Processing,
            callbackUrl: callback?.url ?? null,
            callbackAuthorization: callback?.authorization ? this.secrets.seal(callback.authorization) : null,
            unitCount: parsed.units.length,
            pendingUnits: parsed.units.length,
            createdAt,
            ...stamp,
          },
        });
        for (let start = 0; start < parsed.units.length; start += UNIT_INSERT_BATCH) {
          await tx.productionUnit.createMany({
            data: parsed.units.slice(start, start + UNIT_INSERT_BATCH).map((input, offset) => ({
              runId: id,
              seq: start + offset,
              lineId: parsed.lineId,
              input: input as Prisma.InputJsonObject,
              status: UnitStatus.Processing,
              createdAt,
            })),
          });
        }
        return row;
      },
      { timeout: 60_000, maxWait: 10_000 },
    );
    return created(api, run);
  }

  async get(request: RunGetRequest): Promise<object> {
    const run = await this.ownedRun(request.api, request.account_id, request.run_id);
    const paged = request.units_offset !== undefined || request.units_limit !== undefined;
    const units = await this.prisma.productionUnit.findMany({
      where: { runId: run.id },
      orderBy: { seq: 'asc' },
      select: UNIT_FIELDS,
      ...(paged ? { skip: request.units_offset ?? 0, take: request.units_limit } : {}),
    });
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
    const v4 = run.api === 'v4';
    const delivery: DeliveryRequestedEvent = {
      delivery_id: `platform-run-${run.id}`,
      owner: { account_id: run.accountId },
      subject: { run_id: run.id },
      event_type: v4 ? 'run.processed' : 'batch.completed',
      url: run.callbackUrl,
      body: JSON.stringify(v4 ? v4Run(run, units) : v3Callback(run, units)),
      signing: 'none',
      ...(run.callbackAuthorization ? { sealed_authorization: run.callbackAuthorization } : {}),
    };
    await enqueueEvent(tx, PLATFORM_OUTBOX_SOURCE, Topic.DeliveryRequested, delivery, { key: run.id });
  }

  private async ownedRun(api: PlatformApi, accountId: string, runId: string): Promise<RunRow> {
    const run = (await this.prisma.productionRun.findUnique({ where: { id: runId } })) as RunRow | null;
    if (api === 'v3') {
      if (!run) throw new DomainError(ErrorCode.NotFound, 'Task not found', undefined, V3.TaskNotFound);
      if (run.accountId !== accountId) throw new DomainError(ErrorCode.Forbidden, 'Task not owned by caller', undefined, V3.NotOwned);
      return run;
    }
    if (!run || run.accountId !== accountId) throw DomainError.notFound('Not found');
    return run;
  }
}
