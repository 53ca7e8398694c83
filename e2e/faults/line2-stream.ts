import { dbQuery, http, type LoopbackReceiver, type PlatformAccount } from '@workline/testing';
import { isDeepStrictEqual } from 'node:util';
import { pause, type FaultClient, type Worker } from './client';
import { deliveryIdsOf } from './deliveries-audit';
import { closedAsTold, UNIT_FLAG_REASON } from './run-stream';

const V3_BATCH_UNITS = 6;
const V3_BATCH_PAUSE_MS = 2500;

/** A run to abort under fire: `units` far more than the bots do before the abort; they leave the last `reserve` until it is sent. */
export interface AbortRunSize {
  units: number;
  reserve: number;
}

type Line2Outcome = 'Completed' | 'Flagged' | 'Aborted';

/**
 * (f) A second line: v3 batches (`POST /v3/tasks` with an Idempotency-Key and a callback each) every ~2.5 s
 * and, when the scenario asks for one, a v4 run with a callback that the scenario aborts under fire
 * ({@link abort}), worked by bots of their own (a unit whose id ends in 3 is flagged).
 */
export class Line2Stream {
  readonly v3 = { sent: 0, accepted: new Map<string, { identifier: string; page: number }[]>(), retried: 0 };
  readonly abortState: { runId?: string; answer?: number; attempts: number; sent: boolean } = { attempts: 0, sent: false };
  readonly outcome = new Map<string, Line2Outcome>();
  readonly counters = { leasesLost: 0 };
  private abortRunDone = 0;
  private streamsDone = false;
  private done = false;
  private stream?: Promise<void>;
  private bots?: Promise<unknown>;
  private aborting: Promise<void> = Promise.resolve();

  constructor(
    private readonly client: FaultClient,
    private readonly platform: PlatformAccount,
    readonly lineId: string,
    private readonly receiver: LoopbackReceiver,
    private readonly callbacks: { v3: { path: string; url: string }; abort: { path: string; url: string } },
    private readonly abortRun: AbortRunSize | undefined,
    private readonly state: { faultsDone: boolean },
  ) {}

  static output(identifier: string) {
    return { label: `done-${identifier}` };
  }

  /** Creates the run to abort, once, before the faults (no Idempotency-Key: not retried). */
  async create(): Promise<void> {
    if (!this.abortRun) return;
    const created = await http<{ id: string }>('POST', `${this.client.url}/v4/runs`, {
      headers: this.platform.auth,
      body: {
        line_id: this.lineId,
        callback_url: this.callbacks.abort.url,
        units: Array.from({ length: this.abortRun.units }, (_, i) => ({ identifier: `a${i}` })),
      },
    });
    if (created.status !== 201) throw new Error(`POST /v4/runs answered ${created.status}: ${created.text}`);
    this.abortState.runId = created.body.id;
  }

  /** Sends the abort (the scenario does so while a fault is on); 202, or on a retry 405: the first attempt went through. */
  abort(): void {
    this.abortState.sent = true;
    this.aborting = (async () => {
      const answer = await this.client.send('POST', `/v4/runs/${this.abortState.runId}/abort`, this.platform.auth);
      this.abortState.attempts = answer.attempts;
      if (answer.result?.status === 202 || (answer.result?.status === 405 && answer.attempts > 1))
        this.abortState.answer = answer.result.status;
      else this.client.unexpected('abort', answer.result);
    })();
  }

  start(workers: Worker[]): void {
    this.stream = (async () => {
      for (let b = 0; !this.state.faultsDone; b++) {
        this.v3.sent++;
        const resources = Array.from({ length: V3_BATCH_UNITS }, (_, j) => ({ identifier: `v${b}-${j}`, page: j }));
        const batch = await this.client.send<{ task_id: string; template_id: string; status: string }>(
          'POST',
          '/v3/tasks',
          { ...this.platform.auth, 'idempotency-key': `fault-v3-${this.lineId}-${b}` },
          { template_id: this.lineId, callback_url: this.callbacks.v3.url, resources },
        );
        if (batch.attempts > 1) this.v3.retried++;
        if (batch.result?.status === 200 && batch.result.body.template_id === this.lineId && batch.result.body.status === 'In-Progress')
          this.v3.accepted.set(batch.result.body.task_id, resources);
        else this.client.unexpected(`v3 batch ${b}`, batch.result);
        await pause(V3_BATCH_PAUSE_MS);
      }
    })();
    const bot = async (worker: Worker) => {
      while (!this.done) {
        if (this.abortRun && !this.abortState.sent && this.abortRunDone >= this.abortRun.units - this.abortRun.reserve) {
          await pause(250);
          continue;
        }
        const leased = await this.client.nextAssignment<{ assignment_id: string; run_id: string; input: { identifier: string } }>(
          worker,
          { kind: 'unit', line_id: this.lineId },
          this.counters,
        );
        if (!leased) continue;
        const { identifier } = leased.input;
        const flag = identifier.endsWith('3');
        const done = await this.client.closeAssignment(
          worker,
          leased.assignment_id,
          flag,
          flag ? { reason: UNIT_FLAG_REASON } : { output: Line2Stream.output(identifier) },
        );
        const answer = done.result;
        const key = `${leased.run_id}/${identifier}`;
        if (leased.run_id === this.abortState.runId && !this.outcome.has(key)) this.abortRunDone++;
        if (closedAsTold(answer?.status, answer?.text)) this.outcome.set(key, flag ? 'Flagged' : 'Completed');
        else if (answer?.status === 409 && /its run was aborted/.test(answer.text)) this.outcome.set(key, 'Aborted');
        else if (!(answer?.status === 409 && /lease expired/.test(answer.text)))
          this.client.unexpected(`${flag ? 'flag' : 'complete'} ${key}`, answer);
      }
    };
    const watch = async () => {
      while (!this.done) {
        await pause(1000);
        if (!this.streamsDone) continue;
        const rows = await dbQuery<{ n: number }>(
          "select count(*)::int as n from platform_run where line_id = $1 and status <> 'Processed'",
          [this.lineId],
        ).catch(() => undefined);
        this.done = rows?.[0].n === 0;
      }
    };
    this.bots = Promise.all([...workers.map(bot), watch()]);
  }

  /** Progress: v3 batches answered 200. */
  get batches(): number {
    return this.v3.accepted.size;
  }

  /** The line's runs: the run to abort, and every v3 batch answered 200. */
  get runIds(): string[] {
    return [...(this.abortState.runId ? [this.abortState.runId] : []), ...this.v3.accepted.keys()];
  }

  /** Once the batch stream has stopped and the abort was answered: every run of the line Processed, the bots stopped. */
  async finished(): Promise<void> {
    await Promise.all([this.stream, this.aborting]);
    this.streamsDone = true;
    await this.bots;
  }

  /**
   * The line holds exactly the v3 batches answered 200 and the aborted run, all Processed; every unit as its
   * bot was told (output, flag reason) or, only in the aborted run, Aborted with empty output (some must be,
   * when the abort answered 202); the aborted run's callback equals GET /v4/runs/{id}; each v3 batch's
   * callback (one delivery id, status Completed, completed_at as "YYYY-MM-DD HH:MM:SS UTC") and GET
   * /v3/tasks/{id} hold the resources as the units are (auditDeliveries holds each callback to its delivery row).
   */
  async audit(): Promise<Record<string, string | number>> {
    const abortRunId = this.abortState.runId;
    const runs = await dbQuery<{ id: string; status: string }>('select id, status from platform_run where line_id = $1', [this.lineId]);
    expect(runs.map((r) => r.id).sort()).toEqual([...this.runIds].sort());
    expect(runs.filter((r) => r.status !== 'Processed')).toEqual([]);
    const units = await dbQuery<{ run_id: string; identifier: string; status: string; output: unknown; flag_reason: string | null }>(
      "select run_id, input->>'identifier' as identifier, status, output, flag_reason from platform_unit where line_id = $1",
      [this.lineId],
    );
    expect(units).toHaveLength((this.abortRun?.units ?? 0) + this.v3.accepted.size * V3_BATCH_UNITS);
    const emptyOutput = (output: unknown) => output === null || isDeepStrictEqual(output, {});
    const mismatched = units.filter((u) => {
      const told = this.outcome.get(`${u.run_id}/${u.identifier}`);
      if (u.status === 'Aborted') return u.run_id !== abortRunId || (told !== undefined && told !== 'Aborted') || !emptyOutput(u.output);
      if (told !== undefined && told !== u.status) return true;
      return u.status === 'Completed'
        ? !isDeepStrictEqual(u.output, Line2Stream.output(u.identifier)) || u.flag_reason !== null
        : u.status !== 'Flagged' || u.flag_reason !== UNIT_FLAG_REASON;
    });
    expect(mismatched).toEqual([]);
    const summary: Record<string, string | number> = {};
    if (abortRunId) {
      const aborted = units.filter((u) => u.status === 'Aborted').length;
      const { answer, attempts } = this.abortState;
      const asExpected = answer === 202 || (answer === 405 && attempts > 1);
      const problems = this.client.problems.filter((p) => p.startsWith('abort')).join('; ');
      expect(asExpected || `abort answered ${answer ?? 'nothing'} after ${attempts} attempt(s): ${problems}`).toBe(true);
      if (answer === 202) expect(aborted).toBeGreaterThan(0);
      const callbacks = this.receiver.on(this.callbacks.abort.path);
      expect(deliveryIdsOf(callbacks).size).toBe(1);
      const polled = await http('GET', `${this.client.url}/v4/runs/${abortRunId}`, { headers: this.platform.auth });
      expect(JSON.parse(callbacks[0].rawBody.toString('utf8'))).toEqual(polled.body);
      const inRun = (status: string) => units.filter((u) => u.run_id === abortRunId && u.status === status).length;
      summary['aborted run: abort answer, units Aborted / Completed / Flagged'] =
        `${answer} after ${attempts} attempt(s), ${aborted} / ${inRun('Completed')} / ${inRun('Flagged')}`;
    }
    const v3Problems: unknown[] = [];
    for (const [taskId, resources] of this.v3.accepted) {
      const callbacks = this.receiver
        .on(this.callbacks.v3.path)
        .filter((r) => (JSON.parse(r.rawBody.toString('utf8')) as { task_id: string }).task_id === taskId);
      const callback = callbacks.length ? (JSON.parse(callbacks[0].rawBody.toString('utf8')) as Record<string, unknown>) : undefined;
      const polled = await http<Record<string, unknown>>('GET', `${this.client.url}/v3/tasks/${taskId}`, { headers: this.platform.auth });
      const byIdentifier = new Map(units.filter((u) => u.run_id === taskId).map((u) => [u.identifier, u]));
      const expectedResources = resources.map((input) => {
        const unit = byIdentifier.get(input.identifier)!;
        return { ...input, ...(unit.status === 'Completed' ? Line2Stream.output(input.identifier) : {}), extra: { status: unit.status } };
      });
      const ok =
        callback !== undefined &&
        deliveryIdsOf(callbacks).size === 1 &&
        callback.template_id === this.lineId &&
        callback.status === 'Completed' &&
        /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/.test(String(callback.completed_at)) &&
        isDeepStrictEqual(callback.resources, expectedResources) &&
        polled.status === 200 &&
        polled.body.status === 'Completed' &&
        isDeepStrictEqual(polled.body.resources, expectedResources);
      if (!ok) v3Problems.push({ taskId, callbacks: callbacks.length, callback, polled: polled.body, expectedResources });
    }
    expect(v3Problems).toEqual([]);
    return {
      'v3 batches sent / answered 200 (each Completed, callback as the units)': `${this.v3.sent} / ${this.v3.accepted.size}`,
      ...summary,
      'line 2 `next` calls retried (a lease may be orphaned)': this.counters.leasesLost,
    };
  }
}
