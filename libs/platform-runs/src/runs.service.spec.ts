import type { PublicSurface } from '@workline/db';
import { BlobReplies, type BlobStore } from '@workline/blob-store';
import { decodeCursor, ErrorCode, type PlatformApi, type RunAbortRequestedEvent, V3 } from '@workline/contracts';
import type { Sql } from '@workline/db';
import type { Tx } from '@workline/messaging';
import type { PlatformRunsSettings } from './platform-runs.settings';
import { RunStatus, type UnitRecord, UnitStatus } from './run-views';
import type { DeliveryToEnqueue, ListedRun, NewRun, OwnedRun, RunListFilter, RunRow, RunsRepository, RunToAbort } from './runs.repository';
import { ABORT_ACCEPTED, ALREADY_PROCESSED, RunsService } from './runs.service';

type StoredRun = RunRow & {
  pendingUnits: number;
  abortRequestedAt: Date | null;
  idempotencyKey: string | null;
  idempotencyHash: string | null;
};

/** The run and unit tables and the outbox in memory; the transaction handles (Tx, Sql) are not looked at. */
class InMemoryRunsRepository implements PublicSurface<RunsRepository> {
  readonly lines = new Map([
    ['line-1', 'acc-1'],
    ['line-2', 'acc-2'],
  ]);
  readonly runs = new Map<string, StoredRun>();
  readonly unitRows = new Map<string, UnitRecord[]>();
  readonly aborts: RunAbortRequestedEvent[] = [];
  readonly deliveries: DeliveryToEnqueue[] = [];
  lineReads = 0;
  pokes = 0;

  async findByIdempotencyKey(accountId: string, idempotencyKey: string) {
    const run = [...this.runs.values()].find((r) => r.accountId === accountId && r.idempotencyKey === idempotencyKey);
    return run
      ? {
          id: run.id,
          lineId: run.lineId,
          status: run.status,
          createdAt: run.createdAt,
          processedAt: null,
          idempotencyHash: run.idempotencyHash,
        }
      : null;
  }

  async lineAccount(lineId: string): Promise<string | undefined> {
    this.lineReads++;
    return this.lines.get(lineId);
  }

  async insert(run: NewRun): Promise<boolean> {
    if (run.idempotency_key && (await this.findByIdempotencyKey(run.account_id, run.idempotency_key))) return false;
    const createdAt = new Date(run.created_at);
    this.runs.set(run.id, {
      id: run.id,
      accountId: run.account_id,
      lineId: run.line_id,
      api: run.api,
      status: RunStatus.Processing,
      callbackUrl: run.callback_url,
      callbackAuthorization: run.callback_authorization,
      unitCount: run.unit_count,
      pendingUnits: run.unit_count,
      createdAt,
      processedAt: null,
      abortRequestedAt: null,
      idempotencyKey: run.idempotency_key,
      idempotencyHash: run.idempotency_hash,
    });
    this.unitRows.set(
      run.id,
      run.units.map((input) => ({ input, output: null, status: UnitStatus.Processing, createdAt, processedAt: null })),
    );
    return true;
  }

  async find(runId: string): Promise<OwnedRun | undefined> {
    return this.runs.get(runId);
  }

  async units(runId: string, offset: number | null, limit: number | null): Promise<UnitRecord[]> {
    const start = offset ?? 0;
    return this.unitRows.get(runId)!.slice(start, limit === null ? undefined : start + limit);
  }

  async requestAbort(runId: string, accept: (run: RunToAbort | undefined) => boolean, event: RunAbortRequestedEvent): Promise<boolean> {
    const run = this.runs.get(runId);
    if (!accept(run && { account_id: run.accountId, status: run.status, abort_requested_at: run.abortRequestedAt })) return false;
    run!.abortRequestedAt = new Date();
    this.aborts.push(event);
    return true;
  }

  async abortUnits(_tx: Tx, runId: string): Promise<number> {
    const open = this.unitRows.get(runId)!.filter((unit) => unit.status === UnitStatus.Processing);
    for (const unit of open) Object.assign(unit, { status: UnitStatus.Aborted, output: null, processedAt: new Date() });
    return open.length;
  }

  async countFinished(_tx: Tx, runId: string, count: number): Promise<string | undefined> {
    const run = this.runs.get(runId)!;
    if (run.status !== RunStatus.Processing) return undefined;
    run.pendingUnits -= count;
    if (run.pendingUnits <= 0) Object.assign(run, { status: RunStatus.Processed, processedAt: new Date() });
    return run.status;
  }

  async runOf(_tx: Tx, runId: string): Promise<RunRow> {
    return this.runs.get(runId)!;
  }

  async unitsOf(_tx: Tx, runId: string): Promise<UnitRecord[]> {
    return this.unitRows.get(runId)!;
  }

  async enqueueDelivery(_tx: Tx, delivery: DeliveryToEnqueue): Promise<void> {
    this.deliveries.push(delivery);
  }

  async callbackRuns(_sql: Sql, runIds: string[]): Promise<RunRow[]> {
    return runIds.map((id) => this.runs.get(id)!).filter((run) => run.callbackUrl);
  }

  async unitsOfRuns(_sql: Sql, runIds: string[]): Promise<(UnitRecord & { runId: string })[]> {
    return runIds.flatMap((runId) => this.unitRows.get(runId)!.map((unit) => ({ ...unit, runId })));
  }

  async enqueueDeliveries(_sql: Sql, deliveries: DeliveryToEnqueue[]): Promise<void> {
    this.deliveries.push(...deliveries);
  }

  pokeRelay(): void {
    this.pokes++;
  }

  async list(filter: RunListFilter, take: number): Promise<ListedRun[]> {
    const after = filter.cursor === undefined ? undefined : decodeCursor(filter.cursor);
    const newestFirst = (a: StoredRun, b: StoredRun) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);
    return [...this.runs.values()]
      .filter((run) => filter.accountId === undefined || run.accountId === filter.accountId)
      .filter((run) => filter.lineId === undefined || run.lineId === filter.lineId)
      .filter((run) => filter.status === undefined || run.status === filter.status)
      .filter(
        (run) =>
          !after ||
          run.createdAt.getTime() < after.createdAt.getTime() ||
          (run.createdAt.getTime() === after.createdAt.getTime() && run.id < after.id),
      )
      .sort(newestFirst)
      .slice(0, take);
  }
}

const settings = { secretsKey: 'k'.repeat(64), callbackPolicy: {} } as PlatformRunsSettings;
const tx = {} as Tx;
const sql = {} as Sql;

function setup() {
  const repository = new InMemoryRunsRepository();
  const replies = new BlobReplies({} as BlobStore, {
    service: 'platform-runs',
    inlineBytes: 1_000_000,
    keepSeconds: 60,
    sweepSeconds: 60,
    warn: () => {},
  });
  const service = new RunsService(repository, replies, settings);
  const create = async (body: object, options: { api?: PlatformApi; account?: string; key?: string } = {}) =>
    service.create({
      account_id: options.account ?? 'acc-1',
      api: options.api ?? 'v4',
      body_json: JSON.stringify(body),
      ...(options.key ? { idempotency_key: options.key } : {}),
    });
  const read = async (runId: string, options: { api?: PlatformApi; account?: string; offset?: number; limit?: number } = {}) => {
    const reply = await service.get({
      account_id: options.account ?? 'acc-1',
      api: options.api ?? 'v4',
      run_id: runId,
      ...(options.offset !== undefined ? { units_offset: options.offset } : {}),
      ...(options.limit !== undefined ? { units_limit: options.limit } : {}),
    });
    return JSON.parse((reply as { json: string }).json) as Record<string, unknown>;
  };
  return { repository, service, create, read };
}

const units = [{ n: 1 }, { n: 2 }, { n: 3 }];

describe('RunsService', () => {
  describe('create', () => {
    it('creates a run on one of your lines with its units in order, Processing', async () => {
      const { repository, create } = setup();
      const { view, replayed } = await create({ line_id: 'line-1', units });
      expect(replayed).toBe(false);
      const id = (view as { id: string }).id;
      expect(view).toMatchObject({ id, line_id: 'line-1', status: 'Processing' });
      expect(repository.runs.get(id)).toMatchObject({ accountId: 'acc-1', api: 'v4', unitCount: 3, pendingUnits: 3, callbackUrl: null });
      expect(repository.unitRows.get(id)!.map((unit) => unit.input)).toEqual(units);
    });

    it("refuses a line of another account as v4 and v3 each say it, reading a line's account once", async () => {
      const { repository, create } = setup();
      await expect(create({ line_id: 'line-2', units })).rejects.toMatchObject({
        code: ErrorCode.Validation,
        errors: [{ field: 'line_id', message: 'line-2 is not one of your production lines' }],
      });
      await expect(create({ template_id: 'line-2', resources: units }, { api: 'v3' })).rejects.toMatchObject({
        code: ErrorCode.NotFound,
        message: 'Template not found',
        v3Code: V3.TemplateNotFound,
      });
      await expect(create({ line_id: 'line-9', units })).rejects.toMatchObject({ code: ErrorCode.Validation });
      expect(repository.lineReads).toBe(2);
      expect(repository.runs.size).toBe(0);
    });

    it('refuses a callback URL to a private address, and seals the credentials of an accepted one', async () => {
      const { repository, create } = setup();
      await expect(create({ line_id: 'line-1', units, callback_url: 'http://127.0.0.1:8080/done' })).rejects.toMatchObject({
        code: ErrorCode.Validation,
        errors: [{ field: 'callback_url', message: expect.any(String) }],
      });
      const { view } = await create({ line_id: 'line-1', units, callback_url: 'https://ann:secret@93.184.216.34/done' });
      const run = repository.runs.get((view as { id: string }).id)!;
      expect(run.callbackUrl).toBe('https://93.184.216.34/done');
      expect(run.callbackAuthorization).toEqual(expect.any(String));
      expect(run.callbackAuthorization).not.toContain('secret');
    });

    it('answers a repeat of the same Idempotency-Key with the first run, and refuses the key with another body', async () => {
      const { repository, create } = setup();
      const first = await create({ line_id: 'line-1', units }, { key: 'k-1' });
      const again = await create({ line_id: 'line-1', units }, { key: 'k-1' });
      expect(again).toEqual({ view: first.view, replayed: true });
      await expect(create({ line_id: 'line-1', units: [{ n: 9 }] }, { key: 'k-1' })).rejects.toMatchObject({
        message: expect.stringContaining('"k-1" was already used with another request'),
      });
      const otherAccount = await create({ line_id: 'line-2', units }, { key: 'k-1', account: 'acc-2' });
      expect(otherAccount.replayed).toBe(false);
      expect(repository.runs.size).toBe(2);
    });
  });

  describe('get', () => {
    it('answers the run with its units, or a page of them with the total', async () => {
      const { create, read } = setup();
      const { view } = await create({ line_id: 'line-1', units });
      const id = (view as { id: string }).id;
      expect(await read(id)).toMatchObject({ id, status: 'Processing' });
      const page = await read(id, { offset: 1, limit: 1 });
      expect(page.units_page).toEqual({ offset: 1, limit: 1, total: 3 });
      expect(JSON.stringify(page)).toContain('"n":2');
      expect(JSON.stringify(page)).not.toContain('"n":1');
    });

    it("hides another account's run: v4 404, v3 403 (not owned) or 404 (unknown) with their codes", async () => {
      const { create, read } = setup();
      const { view } = await create({ line_id: 'line-1', units });
      const id = (view as { id: string }).id;
      await expect(read(id, { account: 'acc-2' })).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'Not found' });
      await expect(read('nope')).rejects.toMatchObject({ code: ErrorCode.NotFound, message: 'Not found' });
      await expect(read(id, { api: 'v3', account: 'acc-2' })).rejects.toMatchObject({ code: ErrorCode.Forbidden, v3Code: V3.NotOwned });
      await expect(read('nope', { api: 'v3' })).rejects.toMatchObject({ code: ErrorCode.NotFound, v3Code: V3.TaskNotFound });
    });
  });

  describe('list (admin API)', () => {
    it('pages through every run newest first, each once, and filters by account, line and status', async () => {
      const { repository, service, create } = setup();
      const ids: string[] = [];
      for (const [line, api, account] of [
        ['line-1', 'v4', 'acc-1'],
        ['line-2', 'v4', 'acc-2'],
        ['line-1', 'v3', 'acc-1'],
        ['line-1', 'v4', 'acc-1'],
        ['line-2', 'v4', 'acc-2'],
      ] as const) {
        const body = api === 'v4' ? { line_id: line, units } : { template_id: line, resources: units };
        const { view } = await create(body, { api, account });
        const id = (view as { id?: string; task_id?: string }).id ?? (view as { task_id: string }).task_id;
        // Distinct creation times, oldest first, so that newest first is the reverse of `ids`.
        repository.runs.get(id)!.createdAt = new Date(Date.UTC(2026, 0, 1, 0, 0, ids.length));
        ids.push(id);
      }
      await service.requestAbort({ account_id: 'acc-1', run_id: ids[3] });
      repository.runs.get(ids[0])!.status = RunStatus.Processed;

      const seen: string[] = [];
      let cursor: string | undefined;
      do {
        const page = await service.list({ limit: 2, ...(cursor ? { cursor } : {}) });
        expect(page.runs.length).toBeLessThanOrEqual(2);
        seen.push(...page.runs.map((run) => run.id));
        cursor = page.next_cursor ?? undefined;
      } while (cursor);
      expect(seen).toEqual([...ids].reverse());

      const { runs } = await service.list({ account_id: 'acc-1' });
      expect(runs.map((run) => run.id)).toEqual([ids[3], ids[2], ids[0]]);
      expect(runs[0]).toEqual({
        id: ids[3],
        account_id: 'acc-1',
        line_id: 'line-1',
        api: 'v4',
        status: 'Processing',
        unit_count: 3,
        pending_units: 3,
        abort_requested: true,
        created_at: '2026-01-01T00:00:03.000Z',
        processed_at: null,
      });
      expect(runs[1]).toMatchObject({ api: 'v3', abort_requested: false });
      expect((await service.list({ line_id: 'line-2' })).runs.map((run) => run.id)).toEqual([ids[4], ids[1]]);
      expect((await service.list({ status: 'Processed' })).runs.map((run) => run.id)).toEqual([ids[0]]);
      expect(await service.list({ account_id: 'nobody' })).toEqual({ runs: [], next_cursor: null });
    });

    it('refuses a cursor it did not return', async () => {
      const { service } = setup();
      await expect(service.list({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
        code: ErrorCode.Validation,
        message: 'Invalid request: cursor is not a cursor this API returned',
      });
    });
  });

  describe('abort', () => {
    it('accepts an abort once with one event, again without another, and refuses a processed run', async () => {
      const { repository, service, create } = setup();
      const { view } = await create({ line_id: 'line-1', units });
      const run_id = (view as { id: string }).id;
      await expect(service.requestAbort({ account_id: 'acc-1', run_id })).resolves.toEqual({ message: ABORT_ACCEPTED });
      await expect(service.requestAbort({ account_id: 'acc-1', run_id })).resolves.toEqual({ message: ABORT_ACCEPTED });
      expect(repository.aborts).toEqual([{ run_id, account_id: 'acc-1' }]);
      expect(repository.pokes).toBe(1);
      repository.runs.get(run_id)!.status = RunStatus.Processed;
      await expect(service.requestAbort({ account_id: 'acc-1', run_id })).rejects.toMatchObject({
        code: ErrorCode.NotAllowed,
        message: ALREADY_PROCESSED,
      });
    });

    it("answers 404 for another account's run and an unknown one", async () => {
      const { repository, service, create } = setup();
      const { view } = await create({ line_id: 'line-1', units });
      const run_id = (view as { id: string }).id;
      await expect(service.requestAbort({ account_id: 'acc-2', run_id })).rejects.toMatchObject({ code: ErrorCode.NotFound });
      await expect(service.requestAbort({ account_id: 'acc-1', run_id: 'nope' })).rejects.toMatchObject({ code: ErrorCode.NotFound });
      expect(repository.aborts).toEqual([]);
    });

    it('aborts the open units; the run becomes Processed and its callback is enqueued', async () => {
      const { repository, service, create } = setup();
      const { view } = await create({ line_id: 'line-1', units, callback_url: 'https://93.184.216.34/done' });
      const runId = (view as { id: string }).id;
      repository.unitRows.get(runId)![0].status = UnitStatus.Completed;
      await service.unitsFinished(tx, runId, 1);
      expect(await service.applyAbort(tx, runId)).toBe(true);
      expect(repository.unitRows.get(runId)!.map((unit) => unit.status)).toEqual([
        UnitStatus.Completed,
        UnitStatus.Aborted,
        UnitStatus.Aborted,
      ]);
      expect(repository.deliveries).toHaveLength(1);
      const [{ data, key }] = repository.deliveries;
      expect(key).toBe(runId);
      expect(data).toMatchObject({
        delivery_id: `platform-run-${runId}`,
        owner: { account_id: 'acc-1' },
        subject: { run_id: runId },
        event_type: 'run.processed',
        url: 'https://93.184.216.34/done',
        signing: 'none',
      });
      expect(JSON.parse(data.body)).toMatchObject({ id: runId, status: RunStatus.Processed });
      expect(await service.applyAbort(tx, runId)).toBe(false);
    });
  });

  it('makes the run Processed only with its last unit, and enqueues no callback for a run without one', async () => {
    const { repository, service, create } = setup();
    const { view } = await create({ line_id: 'line-1', units });
    const runId = (view as { id: string }).id;
    expect(await service.unitsFinished(tx, runId, 2)).toBe(false);
    expect(await service.unitsFinished(tx, runId, 1)).toBe(true);
    expect(repository.runs.get(runId)!.status).toBe(RunStatus.Processed);
    expect(repository.deliveries).toEqual([]);
  });

  it(
    'enqueues the callbacks of runs a batch finished, ' + 'each with its units and the request id of the outcome that finished it',
    async () => {
      const { repository, service, create } = setup();
      const withCallback = (
        await create({ template_id: 'line-1', resources: units, callback_url: 'https://93.184.216.34/v3' }, { api: 'v3' })
      ).view as { task_id: string };
      const without = (await create({ line_id: 'line-1', units })).view as { id: string };
      await service.enqueueCallbacks(sql, [{ id: withCallback.task_id, headers: { 'x-request-id': 'req-7' } }, { id: without.id }]);
      expect(repository.deliveries).toHaveLength(1);
      const [delivery] = repository.deliveries;
      expect(delivery).toMatchObject({
        key: withCallback.task_id,
        headers: { 'x-request-id': 'req-7' },
        data: { event_type: 'batch.completed' },
      });
      expect(delivery.data.body).toContain('"n":3');
      await service.enqueueCallbacks(sql, []);
      expect(repository.deliveries).toHaveLength(1);
    },
  );
});
