import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CallbackUrlError } from '@workline/callback-url';
import { type DeliveryDeadEvent, Topic } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { enqueueEvent, OutboxRelay } from '@workline/kafka';
import { runWithRequestId } from '@workline/observability';
import { SecretBox } from '@workline/secrets';
import { sign } from '@workline/signature';
import { randomUUID } from 'node:crypto';
import { DELIVERY_OPTIONS, type DeliveryOptions } from './delivery.options';
import { type AttemptResult, postOnce, resolveDeliveryTarget } from './http-attempt';
import { afterFailure, isSuccessStatus, parseRetryAfterMs } from './retry-policy';

/** A claimed delivery: what an attempt needs. */
interface ClaimedDelivery {
  id: string;
  account_id: string;
  workstream_id: string | null;
  task_id: string | null;
  run_id: string | null;
  event_type: string;
  url: string;
  body: string;
  signing: string;
  sealed_secret: string | null;
  sealed_authorization: string | null;
  request_id: string | null;
}

const message = (error: unknown) => (error instanceof Error ? error.message : String(error));

/**
 * Makes the attempts. Every instance polls PostgreSQL for due deliveries and claims a batch in one
 * statement (FOR UPDATE SKIP LOCKED, then a lease token and expiry on each row), so two instances never
 * make the same attempt: a row is either locked by another claim or leased. The outcome is written only
 * under the lease token that made it. A crash mid-attempt leaves the lease to expire, after which any
 * instance makes the attempt again: the at-least-once crash window (docs/webhooks.md).
 */
@Injectable()
export class DeliveryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryScheduler.name);
  private readonly box: SecretBox;
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop?: Promise<void>;
  private wake?: () => void;
  private woken = false;

  constructor(
    private readonly prisma: PrismaService,
    private readonly outbox: OutboxRelay,
    @Inject(DELIVERY_OPTIONS) private readonly options: DeliveryOptions,
  ) {
    this.box = new SecretBox(options.secretsKey);
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.run();
  }

  /**
   * Stops claiming and lets the attempts under way finish and record their outcome. The database closes
   * later, at application shutdown.
   */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    await Promise.allSettled([...this.inFlight]);
  }

  /** Look for due deliveries now instead of at the next poll (after an intake or a redelivery). */
  poke(): void {
    this.woken = true;
    this.wake?.();
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let claimed = 0;
      try {
        const free = this.options.concurrency - this.inFlight.size;
        if (free > 0) {
          const rows = await this.claim(free);
          claimed = rows.length;
          for (const row of rows) {
            const task = this.attempt(row).finally(() => {
              this.inFlight.delete(task);
              this.poke();
            });
            this.inFlight.add(task);
          }
        }
        failures = 0;
      } catch (error) {
        failures++;
        this.logger.warn(`claiming due deliveries failed, will retry: ${message(error)}`);
      }
      if (claimed > 0 && this.inFlight.size < this.options.concurrency) continue;
      await this.sleep(failures ? Math.min(10_000, this.options.pollMs * 2 ** failures) : this.options.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = undefined;
        this.woken = false;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wake = done;
    });
  }

  /** Claims up to `limit` due deliveries for this instance. */
  async claim(limit: number): Promise<(ClaimedDelivery & { lease_token: string })[]> {
    const token = randomUUID();
    const rows = await this.prisma.$queryRaw<ClaimedDelivery[]>`
      with due as (
        select id from delivery
        where status = 'pending' and next_attempt_at <= now() and (lease_until is null or lease_until < now())
        order by next_attempt_at
        limit ${limit}
        for update skip locked
      )
      update delivery d set lease_token = ${token}, lease_until = now() + ${this.options.leaseMs} * interval '1 millisecond'
      from due where d.id = due.id
      returning d.id, d.account_id, d.workstream_id, d.task_id, d.run_id, d.event_type, d.url, d.body, d.signing,
        d.sealed_secret, d.sealed_authorization, d.request_id`;
    return rows.map((row) => ({ ...row, lease_token: token }));
  }

  /** The headers of one attempt; the signature covers exactly `body`, the bytes sent. */
  headersFor(delivery: ClaimedDelivery): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'Workline-Webhooks/1',
      'X-SVC-Delivery-Id': delivery.id,
    };
    if (delivery.signing === 'x-svc-signature') {
      if (!delivery.sealed_secret) throw new Error('the delivery must be signed but carries no signing secret');
      headers['X-SVC-Signature'] = sign(Buffer.from(delivery.body, 'utf8'), this.box.open(delivery.sealed_secret));
    }
    if (delivery.sealed_authorization) headers['Authorization'] = this.box.open(delivery.sealed_authorization);
    return headers;
  }

  /** One attempt, under the id of the request that caused the delivery (its log lines carry it). */
  private attempt(delivery: ClaimedDelivery & { lease_token: string }): Promise<void> {
    return runWithRequestId(delivery.request_id ?? undefined, () => this.attemptInContext(delivery));
  }

  private async attemptInContext(delivery: ClaimedDelivery & { lease_token: string }): Promise<void> {
    const attemptedAt = new Date();
    let result: AttemptResult;
    try {
      const headers = this.headersFor(delivery);
      const target = await resolveDeliveryTarget(delivery.url, this.options.callbackPolicy);
      result = await postOnce({ target, body: delivery.body, headers });
    } catch (error) {
      const why = error instanceof CallbackUrlError ? `refused: ${error.message}` : message(error);
      result = { statusCode: null, durationMs: Date.now() - attemptedAt.getTime(), error: why, responseExcerpt: null, retryAfter: null };
    }
    // The URL is logged without its query (it may carry a client's token); credentials never sit in it.
    this.logger.log({
      msg: `delivery ${delivery.id} (${delivery.event_type}): ${result.statusCode ? `HTTP ${result.statusCode}` : (result.error ?? 'failed')} in ${result.durationMs} ms`,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      target: delivery.url.split('?')[0],
      status_code: result.statusCode,
      duration_ms: result.durationMs,
    });
    try {
      await this.record(delivery, attemptedAt, result);
    } catch (error) {
      // The lease expires and another attempt is made: at-least-once, never lost.
      this.logger.error(`could not record the attempt of delivery ${delivery.id}: ${message(error)}`);
    }
  }

  /**
   * Writes the attempt and the delivery's next state in one transaction, under the lease that made the
   * attempt (a lost lease means another instance owns the delivery now: its outcome is not ours to write).
   */
  private async record(delivery: ClaimedDelivery & { lease_token: string }, attemptedAt: Date, result: AttemptResult): Promise<void> {
    const success = isSuccessStatus(result.statusCode);
    const error = success ? null : (result.error ?? `HTTP ${result.statusCode}`);
    let dead: DeliveryDeadEvent | undefined;
    await this.prisma.$transaction(
      async (tx) => {
        const [row] = await tx.$queryRaw<{ lease_token: string | null; attempt_count: number; round_failures: number; redeliver_requested: boolean }[]>`
          select lease_token, attempt_count, round_failures, redeliver_requested from delivery where id = ${delivery.id} for update`;
        if (!row || row.lease_token !== delivery.lease_token) {
          this.logger.warn(`delivery ${delivery.id}: the lease expired during the attempt; another instance owns it now`);
          return;
        }
        const number = row.attempt_count + 1;
        await tx.$executeRaw`
          insert into delivery_attempt (delivery_id, number, attempted_at, duration_ms, status_code, error, response_excerpt, instance_id)
          values (${delivery.id}, ${number}, ${attemptedAt}, ${result.durationMs}, ${result.statusCode}, ${error}, ${result.responseExcerpt}, ${this.options.instanceId})`;
        const next = this.nextState(row, success, result);
        await tx.$executeRaw`
          update delivery set attempt_count = ${number}, last_status_code = ${result.statusCode}, last_error = ${error},
            lease_token = null, lease_until = null, redeliver_requested = false, updated_at = now(),
            status = ${next.status}, round_failures = ${next.roundFailures},
            next_attempt_at = case when ${next.waitMs}::int is null then null else now() + ${next.waitMs}::int * interval '1 millisecond' end,
            delivered_at = case when ${success} then now() else delivered_at end,
            dead_at = case when ${next.status} = 'dead' then now() else null end
          where id = ${delivery.id}`;
        if (next.status !== 'dead') return;
        dead = {
          delivery_id: delivery.id,
          owner: { account_id: delivery.account_id, ...(delivery.workstream_id ? { workstream_id: delivery.workstream_id } : {}) },
          subject: { ...(delivery.task_id ? { task_id: delivery.task_id } : {}), ...(delivery.run_id ? { run_id: delivery.run_id } : {}) },
          event_type: delivery.event_type,
          url: delivery.url,
          attempts: number,
          last_error: error ?? 'failed',
        };
        await enqueueEvent(tx, this.options.source, Topic.DeliveryDead, dead, { key: delivery.id });
      },
      // Under load an attempt may wait for a pooled connection; giving up would only repeat the attempt.
      { maxWait: 15_000, timeout: 15_000 },
    );
    if (dead) {
      this.logger.warn(`delivery ${delivery.id} is dead after ${dead.attempts} attempts: ${dead.last_error}`);
      this.outbox.poke();
    }
  }

  /** Where the delivery goes after this attempt; waitMs null means no further attempt is scheduled. */
  private nextState(
    row: { round_failures: number; redeliver_requested: boolean },
    success: boolean,
    result: AttemptResult,
  ): { status: 'pending' | 'delivered' | 'dead'; roundFailures: number; waitMs: number | null } {
    // A redelivery asked for during this attempt: a fresh round starts now, whatever this outcome.
    if (row.redeliver_requested) return { status: 'pending', roundFailures: 0, waitMs: 0 };
    if (success) return { status: 'delivered', roundFailures: row.round_failures, waitMs: null };
    const failures = row.round_failures + 1;
    const decision = afterFailure({
      failures,
      baseMs: this.options.retryBaseMs,
      statusCode: result.statusCode,
      retryAfterMs: parseRetryAfterMs(result.retryAfter),
      random: Math.random(),
    });
    return decision.kind === 'retry' ? { status: 'pending', roundFailures: failures, waitMs: decision.waitMs } : { status: 'dead', roundFailures: failures, waitMs: null };
  }
}
