import { Inject, Injectable, Logger, type OnApplicationBootstrap, type OnModuleDestroy } from '@nestjs/common';
import { CallbackUrlError } from '@workline/callback-url';
import { errorMessage } from '@workline/contracts';
import { DbPool, PollWait } from '@workline/db';
import { OutboxRelay } from '@workline/messaging';
import { runWithRequestId } from '@workline/observability';
import { SecretBox } from '@workline/secrets';
import { sign } from '@workline/signature';
import { randomUUID } from 'node:crypto';
import { WEBHOOK_DISPATCHER_OPTIONS, type WebhookDispatcherOptions } from './webhook-dispatcher.options';
import { type DeliveryRow, DeliveryStore, type LeasedRow, originOf, type OutcomeRow } from './delivery-store';
import { type Dispatchable, DispatchQueue } from './dispatch-queue';
import { ATTEMPT_TIMEOUT_MS, type AttemptResult, postOnce } from './http-attempt';
import { OriginConnections } from './origin-connections';
import { OutcomeRecorder } from './outcome-recorder';
import { afterFailure, isSuccessStatus, parseRetryAfterMs } from './retry-policy';

/** A delivery this instance holds a lease on, in its dispatch queue. */
interface HeldDelivery extends LeasedRow, Dispatchable {
  /** When its lease ends, by the local clock (measured from before the claim was sent: never later than PostgreSQL's). */
  leaseDeadline: number;
}

/** An attempt starts only with this much of its lease left beyond the attempt's own timeout (for the outcome's write). */
const LEASE_MARGIN_MS = 5_000;
/** The default lease: it outlives the longest attempt (5 s) many times over, so only a crash lets it expire. */
export const DEFAULT_LEASE_MS = 30_000;
/** The shortest lease: room for the slowest attempt, the margin for its outcome, and as long again waiting its turn. */
export const MIN_LEASE_MS = 2 * ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS;
/** Deliveries held (waiting and under way) per unit of WEBHOOK_CONCURRENCY. */
const HELD_PER_SLOT = 16;
/** Bytes of bodies held waiting at most (one delivery is always let in). */
const MAX_HELD_BYTES = 64 * 1024 * 1024;
/** Most rows one claim of due deliveries takes. */
const MAX_CLAIM = 1_000;
/** Opened secrets kept (sealed text → secret); past this many the cache starts again. */
const MAX_OPENED_SECRETS = 1_024;

/**
 * Makes the attempts. Deliveries reach the in-memory dispatch queue two ways, each time leased to this
 * instance in the statement that finds them: new ones as they are taken in from Kafka (`takeIn`: the
 * insert of a batch leases the rows the queue has room for), and due ones (retries, redeliveries, leases
 * that expired, intake the queue had no room for) by a poller that claims many at once with FOR UPDATE SKIP
 * LOCKED. Two instances never make the same attempt: a row is either locked by another claim or leased.
 * The queue caps attempts per origin and in all; each attempt reuses keep-alive connections to the origin's
 * checked address (OriginConnections). Outcomes are written in batches, only under the lease that made the
 * attempt (OutcomeRecorder). A crash leaves its leases to expire, after which any instance makes those
 * attempts again: the at-least-once crash window (docs/webhooks.md).
 */
@Injectable()
export class DeliveryScheduler implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(DeliveryScheduler.name);
  private readonly box: SecretBox;
  private readonly store: DeliveryStore;
  private readonly queue: DispatchQueue<HeldDelivery>;
  private readonly connections: OriginConnections;
  private readonly recorder: OutcomeRecorder;
  private readonly attempts = new Set<Promise<void>>();
  private running = false;
  private loop?: Promise<void>;
  private readonly pollWait = new PollWait();
  /** Due deliveries may be waiting in PostgreSQL beyond what the last claim took. */
  private backlog = true;
  /**
   * Secrets opened for attempts, by sealed text: a client's deliveries all carry the same sealed key, and
   * opening it (AES-GCM) cost ~5 % of the dispatcher's CPU per attempt. Held in memory only, as an attempt
   * holds them anyway.
   */
  private opened = new Map<string, string>();

  constructor(
    db: DbPool,
    outbox: OutboxRelay,
    @Inject(WEBHOOK_DISPATCHER_OPTIONS) private readonly options: WebhookDispatcherOptions,
  ) {
    this.box = new SecretBox(options.secretsKey);
    this.store = new DeliveryStore(db, options);
    this.queue = new DispatchQueue<HeldDelivery>({
      concurrency: options.concurrency,
      originConcurrency: options.originConcurrency,
      maxHeld: options.concurrency * HELD_PER_SLOT,
      maxHeldBytes: MAX_HELD_BYTES,
      waitBudgetMs: options.leaseMs - ATTEMPT_TIMEOUT_MS - LEASE_MARGIN_MS,
      slowestAttemptMs: ATTEMPT_TIMEOUT_MS,
    });
    this.connections = new OriginConnections(options.callbackPolicy, options.originConcurrency);
    this.recorder = new OutcomeRecorder(this.store, () => outbox.poke());
  }

  /** Deliveries held now: waiting for their turn, and under way. */
  get dispatchQueue(): { waiting: number; inFlight: number } {
    return { waiting: this.queue.waiting, inFlight: this.queue.inFlight };
  }

  onApplicationBootstrap(): void {
    this.running = true;
    this.loop = this.poll();
  }

  /**
   * Stops claiming, gives back the leases of deliveries still waiting (another instance takes them at
   * once), lets the attempts under way finish and writes their outcomes. The database closes later, at
   * application shutdown; the Kafka intake has stopped before this runs.
   */
  async onModuleDestroy(): Promise<void> {
    this.running = false;
    this.pollWait.wake();
    await this.loop;
    await this.release(this.queue.takeWaiting(() => true));
    while (this.attempts.size) await Promise.allSettled([...this.attempts]);
    await this.recorder.flush();
    await this.connections.close();
  }

  /** Look for due deliveries now instead of at the next poll (after a redelivery). */
  poke(): void {
    this.pollWait.wake();
  }

  /**
   * Stores new deliveries (one statement) and leases to this instance, in the same statement, those the
   * queue has room for, which go straight to it; the others wait in PostgreSQL for the poller. A delivery
   * id stored before is left as it is. Returns how many were new.
   */
  async takeIn(rows: DeliveryRow[]): Promise<number> {
    const unique = [...new Map(rows.map((row) => [row.id, row])).values()];
    let room = this.running ? this.queue.room() : 0;
    let roomBytes = this.queue.roomBytes();
    const originRooms = new Map<string, number>();
    const candidates = unique.map((row) => {
      const origin = originOf(row.url);
      const bytes = Buffer.byteLength(row.body);
      const originRoom = originRooms.get(origin) ?? this.queue.originRoom(origin);
      const claim = room > 0 && originRoom > 0 && bytes <= roomBytes;
      if (claim) {
        room--;
        roomBytes -= bytes;
        originRooms.set(origin, originRoom - 1);
      }
      return { row, origin, bytes, claim };
    });
    const token = randomUUID();
    const sentAt = Date.now();
    const stored = await this.store.intake(
      candidates.map(({ row, claim }) => ({ ...row, claim })),
      token,
    );
    const claimed = new Set(stored.filter((row) => row.claimed).map((row) => row.id));
    for (const { row, origin, bytes } of candidates) {
      if (!claimed.has(row.id)) continue;
      this.queue.push({
        ...row,
        origin,
        bytes,
        lease_token: token,
        attempt_count: 0,
        round_failures: 0,
        leaseDeadline: sentAt + this.options.leaseMs,
      });
    }
    if (claimed.size < stored.length) {
      this.backlog = true;
      this.poke();
    }
    this.pump();
    return stored.length;
  }

  /** Claims due deliveries whenever the queue has room: at every poll, and at once while a backlog remains. */
  private async poll(): Promise<void> {
    let failures = 0;
    while (this.running) {
      let full = false;
      try {
        full = await this.claimDue();
        failures = 0;
      } catch (error) {
        failures++;
        this.logger.warn(`claiming due deliveries failed, will retry: ${errorMessage(error)}`);
      }
      if (full && this.queue.room() > 0) continue;
      await this.pollWait.wait(failures ? Math.min(10_000, this.options.pollMs * 2 ** failures) : this.options.pollMs);
    }
  }

  /** One claim of as many due deliveries as the queue has room for; true when it took all it asked for. */
  private async claimDue(): Promise<boolean> {
    const limit = Math.min(MAX_CLAIM, this.queue.room());
    if (!limit) return false;
    const { full, rooms } = this.queue.originRooms();
    const token = randomUUID();
    const sentAt = Date.now();
    const rows = await this.store.claimDue({
      limit,
      maxBytes: this.queue.roomBytes(),
      fullOrigins: full,
      originRooms: rooms,
      defaultRoom: this.queue.originLimit(),
      token,
    });
    for (const row of rows) {
      const held = this.queue.get(row.id);
      // Its lease ran out while this instance still held it, and this claim took it again: one attempt, under the new lease.
      if (held) {
        held.lease_token = row.lease_token;
        held.leaseDeadline = sentAt + this.options.leaseMs;
        continue;
      }
      this.queue.push({
        ...row,
        origin: originOf(row.url),
        bytes: Buffer.byteLength(row.body),
        leaseDeadline: sentAt + this.options.leaseMs,
      });
    }
    this.pump();
    this.backlog = rows.length >= limit;
    return this.backlog;
  }

  /** Starts every attempt the queue lets start now. */
  private pump(): void {
    while (this.running) {
      const delivery = this.queue.next();
      if (!delivery) break;
      const attempt = this.attempt(delivery)
        .catch((error: unknown) => this.logger.error(`the attempt of delivery ${delivery.id} failed unexpectedly: ${errorMessage(error)}`))
        .finally(() => this.attempts.delete(attempt));
      this.attempts.add(attempt);
    }
    // Room for a full round of attempts again after a backlog: claim now rather than at the next poll.
    if (this.backlog && this.queue.room() >= this.options.concurrency) this.poke();
  }

  /** The headers of one attempt; the signature covers exactly `body`, the bytes sent. */
  headersFor(delivery: DeliveryRow): Record<string, string> {
    const headers: Record<string, string> = {
      'Content-Type': 'application/json',
      'User-Agent': 'Workline-Webhooks/1',
      'X-SVC-Delivery-Id': delivery.id,
    };
    if (delivery.signing === 'x-svc-signature') {
      if (!delivery.sealed_secret) throw new Error('the delivery must be signed but carries no signing secret');
      headers['X-SVC-Signature'] = sign(Buffer.from(delivery.body, 'utf8'), this.open(delivery.sealed_secret));
    }
    if (delivery.sealed_authorization) headers['Authorization'] = this.open(delivery.sealed_authorization);
    return headers;
  }

  /** SecretBox.open, remembered (a sealed text that does not open throws, and is not remembered). */
  private open(sealed: string): string {
    let secret = this.opened.get(sealed);
    if (secret === undefined) {
      secret = this.box.open(sealed);
      if (this.opened.size >= MAX_OPENED_SECRETS) this.opened = new Map();
      this.opened.set(sealed, secret);
    }
    return secret;
  }

  /** One attempt, under the id of the request that caused the delivery (its log lines carry it). */
  private async attempt(delivery: HeldDelivery): Promise<void> {
    if (delivery.leaseDeadline - Date.now() < ATTEMPT_TIMEOUT_MS + LEASE_MARGIN_MS) {
      // It waited too long for its turn to finish inside its lease: back to PostgreSQL, for whoever has room.
      this.queue.done(delivery);
      await this.release([delivery]);
      this.pump();
      return;
    }
    const attemptedAt = new Date();
    const result = await runWithRequestId(delivery.request_id ?? undefined, () => this.post(delivery, attemptedAt));
    this.queue.done(delivery, result.durationMs);
    this.recorder.add(this.outcomeOf(delivery, attemptedAt, result), delivery.leaseDeadline);
    this.pump();
  }

  private async post(delivery: HeldDelivery, attemptedAt: Date): Promise<AttemptResult> {
    let result: AttemptResult;
    let address: string | undefined;
    try {
      const headers = this.headersFor(delivery);
      const { target, pool } = await this.connections.connectionFor(delivery.url);
      address = target.address;
      result = await postOnce({ target, pool, body: delivery.body, headers });
    } catch (error) {
      const why = error instanceof CallbackUrlError ? `refused: ${error.message}` : errorMessage(error);
      result = { statusCode: null, durationMs: Date.now() - attemptedAt.getTime(), error: why, responseExcerpt: null, retryAfter: null };
    }
    // The URL is logged without its query (it may carry a client's token); credentials never sit in it. The
    // address connected to is for the operator: the attempt's error, which the client reads, leaves it out.
    this.logger.log({
      msg:
        `delivery ${delivery.id} (${delivery.event_type}): ` +
        `${result.statusCode ? `HTTP ${result.statusCode}` : (result.error ?? 'failed')} in ${result.durationMs} ms`,
      delivery_id: delivery.id,
      event_type: delivery.event_type,
      target: delivery.url.split('?')[0],
      address,
      status_code: result.statusCode,
      duration_ms: result.durationMs,
    });
    return result;
  }

  /** The attempt's outcome and the delivery's next state (a redelivery asked for meanwhile is applied when it is written). */
  private outcomeOf(delivery: HeldDelivery, attemptedAt: Date, result: AttemptResult): OutcomeRow {
    const success = isSuccessStatus(result.statusCode);
    const error = success ? null : (result.error ?? `HTTP ${result.statusCode}`);
    const next = this.nextState(delivery.round_failures, success, result);
    return {
      id: delivery.id,
      lease_token: delivery.lease_token,
      attempted_at: attemptedAt.toISOString(),
      duration_ms: result.durationMs,
      status_code: result.statusCode,
      error,
      response_excerpt: result.responseExcerpt,
      success,
      status: next.status,
      round_failures: next.roundFailures,
      wait_ms: next.waitMs,
      request_id: delivery.request_id,
      dead:
        next.status === 'dead'
          ? {
              delivery_id: delivery.id,
              owner: { account_id: delivery.account_id, ...(delivery.workstream_id ? { workstream_id: delivery.workstream_id } : {}) },
              subject: {
                ...(delivery.task_id ? { task_id: delivery.task_id } : {}),
                ...(delivery.run_id ? { run_id: delivery.run_id } : {}),
              },
              event_type: delivery.event_type,
              url: delivery.url,
              attempts: delivery.attempt_count + 1,
              last_error: error ?? 'failed',
            }
          : undefined,
    };
  }

  /** Where the delivery goes after this attempt; waitMs null means no further attempt is scheduled. */
  private nextState(
    roundFailures: number,
    success: boolean,
    result: AttemptResult,
  ): { status: 'pending' | 'delivered' | 'dead'; roundFailures: number; waitMs: number | null } {
    if (success) return { status: 'delivered', roundFailures, waitMs: null };
    const failures = roundFailures + 1;
    const decision = afterFailure({
      failures,
      baseMs: this.options.retryBaseMs,
      statusCode: result.statusCode,
      retryAfterMs: parseRetryAfterMs(result.retryAfter),
      random: Math.random(),
    });
    return decision.kind === 'retry'
      ? { status: 'pending', roundFailures: failures, waitMs: decision.waitMs }
      : { status: 'dead', roundFailures: failures, waitMs: null };
  }

  private async release(deliveries: HeldDelivery[]): Promise<void> {
    try {
      await this.store.release(deliveries);
      if (deliveries.length) this.backlog = true;
    } catch (error) {
      // Their leases expire instead; then any instance claims them.
      this.logger.warn(`could not give back ${deliveries.length} delivery leases: ${errorMessage(error)}`);
    }
  }
}
