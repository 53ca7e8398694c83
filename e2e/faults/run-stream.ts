import { dbQuery, eventually, http, type LoopbackReceiver, type PlatformAccount } from '@workline/testing';
import { isDeepStrictEqual } from 'node:util';
import { pause, type FaultClient, type Worker } from './client';
import { deliveryIdsOf } from './deliveries-audit';

/** The reason a bot gives when it flags a unit. */
export const UNIT_FLAG_REASON = 'bot flags every tenth unit';

/** The answers to a unit's complete or flag that mean it is done as the bot was told. */
export const closedAsTold = (status: number | undefined, text = '') =>
  status === 200 || (status === 409 && /already (completed|flagged)/.test(text));

/**
 * (b) One v4 run with a callback, worked by bot workers: `next`, then `complete` (or `flag` every tenth
 * unit), retrying like a client. The bots leave the last `reserve` units until the faults are over, so the run
 * is in flight during every fault.
 */
export class RunStream {
  runId = '';
  readonly outcome = new Map<string, 'Completed' | 'Flagged'>();
  readonly counters = { leasesLost: 0, retried: 0 };
  processed = false;
  private running?: Promise<unknown>;

  constructor(
    private readonly client: FaultClient,
    private readonly platform: PlatformAccount,
    private readonly receiver: LoopbackReceiver,
    private readonly callback: { path: string; url: string },
    private readonly size: { units: number; reserve: number },
    private readonly state: { faultsDone: boolean },
  ) {}

  static output(identifier: string, units: number) {
    return { label: `done-${identifier}`, score: Number(identifier.slice(1)) / units };
  }

  /** Creates the run, once, before the faults (POST /v4/runs without an Idempotency-Key is not retried). */
  async create(): Promise<void> {
    const created = await http<{ id: string }>('POST', `${this.client.url}/v4/runs`, {
      headers: this.platform.auth,
      body: {
        line_id: this.platform.lineId,
        callback_url: this.callback.url,
        units: Array.from({ length: this.size.units }, (_, i) => ({ identifier: `u${i}` })),
      },
    });
    if (created.status !== 201) throw new Error(`POST /v4/runs answered ${created.status}: ${created.text}`);
    this.runId = created.body.id;
  }

  /** Every unit but the reserve is done (the bots wait for the faults to end). */
  get held(): boolean {
    return this.outcome.size >= this.size.units - this.size.reserve;
  }

  start(workers: Worker[]): void {
    const bot = async (worker: Worker) => {
      while (!this.processed) {
        if (!this.state.faultsDone && this.held) {
          await pause(250);
          continue;
        }
        const leased = await this.client.nextAssignment<{ assignment_id: string; input: { identifier: string } }>(
          worker,
          { kind: 'unit', line_id: this.platform.lineId },
          this.counters,
        );
        if (!leased) continue;
        const { identifier } = leased.input;
        const flag = Number(identifier.slice(1)) % 10 === 0;
        const done = await this.client.closeAssignment(
          worker,
          leased.assignment_id,
          flag,
          flag ? { reason: UNIT_FLAG_REASON } : { output: RunStream.output(identifier, this.size.units) },
        );
        if (done.attempts > 1) this.counters.retried++;
        // 409 "already …": an earlier attempt whose answer was lost went through; "lease expired": it comes back.
        if (closedAsTold(done.result?.status, done.result?.text)) this.outcome.set(identifier, flag ? 'Flagged' : 'Completed');
        else if (!(done.result?.status === 409 && /lease expired/.test(done.result.text)))
          this.client.unexpected(`${flag ? 'flag' : 'complete'} ${identifier}`, done.result);
      }
    };
    const watch = async () => {
      while (!this.processed) {
        await pause(1000);
        const rows = await dbQuery<{ status: string }>('select status from platform_run where id = $1', [this.runId]).catch(() => []);
        this.processed = rows[0]?.status === 'Processed';
      }
    };
    this.running = Promise.all([...workers.map(bot), watch()]);
  }

  /** Resolves once the run is Processed and every bot has stopped. */
  finished(): Promise<unknown> {
    return this.running ?? Promise.resolve();
  }

  /**
   * The run Processed with every unit final as its bot was told, holding what it sent (the output of a
   * completion, the reason of a flag); `GET /v4/runs/{id}` says so; its callback arrived with one delivery
   * id, equal to that GET (auditDeliveries holds it to its delivery row).
   */
  async audit(): Promise<Record<string, string | number>> {
    const [run] = await dbQuery<{ status: string; processed_at: Date | null; pending_units: number }>(
      'select status, processed_at, pending_units from platform_run where id = $1',
      [this.runId],
    );
    expect(run).toMatchObject({ status: 'Processed', processed_at: expect.any(Date), pending_units: 0 });
    const units = await dbQuery<{ identifier: string; status: string; output: unknown; flag_reason: string | null }>(
      "select input->>'identifier' as identifier, status, output, flag_reason from platform_unit where run_id = $1",
      [this.runId],
    );
    expect(units).toHaveLength(this.size.units);
    expect(this.outcome.size).toBe(this.size.units);
    const mismatched = units.filter(
      (u) =>
        this.outcome.get(u.identifier) !== u.status ||
        (u.status === 'Completed'
          ? !isDeepStrictEqual(u.output, RunStream.output(u.identifier, this.size.units)) || u.flag_reason !== null
          : u.flag_reason !== UNIT_FLAG_REASON),
    );
    expect(mismatched).toEqual([]);
    const polled = await http<{ status: string }>('GET', `${this.client.url}/v4/runs/${this.runId}`, { headers: this.platform.auth });
    expect(polled.body.status).toBe('Processed');
    const callbacks = await eventually(
      () => (this.receiver.on(this.callback.path).length ? this.receiver.on(this.callback.path) : undefined),
      {
        what: 'the run callback',
        timeoutMs: 120_000,
      },
    );
    const deliveryIds = deliveryIdsOf(callbacks);
    expect(deliveryIds.size).toBe(1);
    expect(JSON.parse(callbacks[0].rawBody.toString('utf8'))).toEqual(polled.body);
    const completed = units.filter((u) => u.status === 'Completed').length;
    const callbackRequests = `${callbacks.length} requests for ${deliveryIds.size} delivery`;
    return {
      'run units (each as its bot left it, output / flag reason as sent)': units.length,
      'units Completed / Flagged': `${completed} / ${units.length - completed}`,
      'unit answers needing retries': this.counters.retried,
      'unit `next` calls retried (a lease may be orphaned)': this.counters.leasesLost,
      'run callbacks received (one delivery id, body = delivery row = GET)': callbackRequests,
    };
  }
}
