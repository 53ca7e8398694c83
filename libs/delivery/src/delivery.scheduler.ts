import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { CallbackUrlError } from '@workline/callback-url';
import { type DeliveryDeadEvent, Topic } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { enqueueEvent, OutboxRelay } from '@workline/kafka';
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
export class DeliveryScheduler implements OnApplicationBootstrap, OnApplicationShutdown {
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

  async onApplicationShutdown(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    // Attempts under way finish (at most the attempt timeout) and record their outcome.
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
        d.sealed_secret, d.sealed_authorization`;
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

  private async attempt(delivery: ClaimedDelivery & { lease_token: string }): Promise<void> {
    const attemptedAt = new Date();
    let result: AttemptResult;
    try {
      const headers = this.headersFor(delivery);
      const target = await resolveDeliveryTarget(delivery.url, this.options.allowPrivate);
      result = await postOnce({ target, body: delivery.body, headers });
    } catch (error) {
      const why = error instanceof CallbackUrlError ? `refused: ${error.message}` : message(error);
      result = { statusCode: null, durationMs: Date.now() - attemptedAt.getTime(), error: why, responseExcerpt: null, retryAfter: null };
    }
    try {
      await this.record(delivery, attemptedAt, result);
    } catch (error) {
      // The lease expires and another attempt is made: at-least-once, never lost.
      this.logger.error(`could not record the attempt of delivery ${delivery.id}: ${message(error)}`);
    }
  }

  /** Writes the attempt and the delivery's next state, under the lease that made the attempt. */
  private async record(delivery: ClaimedDelivery & { lease_token: string }, attemptedAt: Date, result: AttemptResult): Promise<void> {
    const success = isSuccessStatus(result.statusCode);
    const error = success ? null : (result.error ?? `HTTP ${result.statusCode}`);
    let dead: DeliveryDeadEvent | undefined;
    await this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ lease_token: string | null; attempt_count: number; round_failures: number; redeliver_requested: boolean }[]>`
        select lease_token, attempt_count, round_failures, redeliver_requested from delivery where id = ${delivery.id} for update`;
      if (!row || row.lease_token !== delivery.lease_token) {
        this.logger.warn(`delivery ${delivery.id}: the lease expired during the attempt; another instance owns it now`);
        return;
      }
      const number = row.attempt_count + 1;
      await tx.deliveryAttempt.create({
        data: {
          deliveryId: delivery.id,
          number,
          attemptedAt,
          durationMs: result.durationMs,
          statusCode: result.statusCode,
          error,
          responseExcerpt: result.responseExcerpt,
          instanceId: this.options.instanceId,
        },
      });
      const common = { attemptCount: number, lastStatusCode: result.statusCode, lastError: error, leaseToken: null, leaseUntil: null, redeliverRequested: false };
      if (row.redeliver_requested) {
        // Asked for during this attempt: a fresh round starts now, whatever this attempt's outcome.
        await tx.delivery.update({ where: { id: delivery.id }, data: { ...common, status: 'pending', roundFailures: 0, nextAttemptAt: new Date(), deadAt: null, ...(success ? { deliveredAt: new Date() } : {}) } });
        return;
      }
      if (success) {
        await tx.delivery.update({ where: { id: delivery.id }, data: { ...common, status: 'delivered', deliveredAt: new Date(), nextAttemptAt: null } });
        return;
      }
      const failures = row.round_failures + 1;
      const decision = afterFailure({
        failures,
        baseMs: this.options.retryBaseMs,
        statusCode: result.statusCode,
        retryAfterMs: parseRetryAfterMs(result.retryAfter),
        random: Math.random(),
      });
      if (decision.kind === 'retry') {
        await tx.$executeRaw`update delivery set next_attempt_at = now() + ${decision.waitMs} * interval '1 millisecond' where id = ${delivery.id}`;
        await tx.delivery.update({ where: { id: delivery.id }, data: { ...common, roundFailures: failures } });
        return;
      }
      await tx.delivery.update({ where: { id: delivery.id }, data: { ...common, roundFailures: failures, status: 'dead', deadAt: new Date(), nextAttemptAt: null } });
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
    });
    if (dead) {
      this.logger.warn(`delivery ${delivery.id} is dead after ${dead.attempts} attempts: ${dead.last_error}`);
      this.outbox.poke();
    }
  }
}
