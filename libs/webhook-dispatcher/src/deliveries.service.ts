import { Inject, Injectable, Logger } from '@nestjs/common';
import { parseCallbackUrl } from '@workline/callback-url';
import {
  DELIVERY_PAGE_DEFAULT,
  type DeliveryAttemptView,
  type DeliveryDetailView,
  type DeliveryGetRequest,
  type DeliveryListRequest,
  type DeliveryPage,
  type DeliveryRequestedEvent,
  type DeliveryStatus,
  type DeliveryView,
  afterCursor,
  DomainError,
  ErrorCode,
  keysetPage,
} from '@workline/contracts';
import { type DeliveryAttempt, type Prisma, PrismaService } from '@workline/db';
import { Inbox } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { WEBHOOK_DISPATCHER_OPTIONS, type WebhookDispatcherOptions } from './webhook-dispatcher.options';
import { scopeWhere } from './delivery-scope';
import { DeliveryScheduler } from './delivery.scheduler';

/** A delivery request from Kafka and the id of the API request that caused it (from the message's headers). */
export interface DeliveryIntake {
  event: DeliveryRequestedEvent;
  requestId?: string;
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/**
 * The columns the Delivery API shows, and the only ones its queries read: a delivery's body (up to the
 * event's size, ~10 MB) and its sealed secrets stay in PostgreSQL, so a page of 100 large deliveries
 * costs the dispatcher a few kilobytes, not a gigabyte.
 */
export const DELIVERY_VIEW_COLUMNS = {
  id: true,
  eventType: true,
  taskId: true,
  runId: true,
  url: true,
  status: true,
  attemptCount: true,
  nextAttemptAt: true,
  lastStatusCode: true,
  lastError: true,
  createdAt: true,
  deliveredAt: true,
  deadAt: true,
} as const satisfies Prisma.DeliverySelect;

export type DeliveryViewRow = Prisma.DeliveryGetPayload<{ select: typeof DELIVERY_VIEW_COLUMNS }>;

export function toDeliveryView(row: DeliveryViewRow): DeliveryView {
  return {
    id: row.id,
    event_type: row.eventType,
    task_id: row.taskId,
    run_id: row.runId,
    url: row.url,
    status: row.status as DeliveryStatus,
    attempt_count: row.attemptCount,
    next_attempt_at: row.status === 'pending' ? iso(row.nextAttemptAt) : null,
    last_status_code: row.lastStatusCode,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: iso(row.deliveredAt),
    dead_at: iso(row.deadAt),
  };
}

export function toAttemptView(row: DeliveryAttempt): DeliveryAttemptView {
  return {
    number: row.number,
    attempted_at: row.attemptedAt.toISOString(),
    status_code: row.statusCode,
    duration_ms: row.durationMs,
    error: row.error,
    response_excerpt: row.responseExcerpt,
  };
}

/** Intake of delivery requests and the Delivery API (list, one with its attempts, redeliver). */
@Injectable()
export class DeliveriesService {
  private readonly logger = new Logger(DeliveriesService.name);
  private readonly box: SecretBox;

  constructor(
    private readonly prisma: PrismaService,
    private readonly scheduler: DeliveryScheduler,
    private readonly inbox: Inbox,
    @Inject(WEBHOOK_DISPATCHER_OPTIONS) options: WebhookDispatcherOptions,
  ) {
    this.box = new SecretBox(options.secretsKey);
  }

  /**
   * Stores requested deliveries, due now, in one statement that also leases to this instance those its
   * dispatch queue has room for (DeliveryScheduler.takeIn). Idempotent on delivery_id: a request seen
   * again (Kafka redelivery, a producer retry) changes nothing. Returns how many were new.
   */
  async intake(requests: DeliveryIntake[]): Promise<number> {
    const rows = requests.map(({ event, requestId }) => {
      // The contract says the URL comes without userinfo; should one slip through, its credentials are
      // moved into the sealed Authorization so they never reach the table, the API or a log.
      const parsed = parseCallbackUrl(event.url);
      return {
        id: event.delivery_id,
        account_id: event.owner.account_id,
        workstream_id: event.owner.workstream_id ?? null,
        task_id: event.subject.task_id ?? null,
        run_id: event.subject.run_id ?? null,
        event_type: event.event_type,
        url: parsed.url,
        body: event.body,
        signing: event.signing,
        sealed_secret: event.sealed_secret ?? null,
        sealed_authorization: event.sealed_authorization ?? (parsed.authorization ? this.box.seal(parsed.authorization) : null),
        // The request that caused the delivery (it came in the event's headers): its attempts log under it.
        request_id: requestId ?? null,
      };
    });
    const created = await this.scheduler.takeIn(rows);
    if (created < rows.length) this.logger.debug(`${rows.length - created} of ${rows.length} delivery requests were already taken in`);
    return created;
  }

  async list(request: DeliveryListRequest): Promise<DeliveryPage> {
    const limit = request.limit ?? DELIVERY_PAGE_DEFAULT;
    const where: Prisma.DeliveryWhereInput[] = [scopeWhere(request.scope)];
    if (request.task_id !== undefined) where.push({ taskId: request.task_id });
    if (request.status !== undefined) where.push({ status: request.status });
    if (request.cursor !== undefined) where.push(afterCursor(request.cursor));
    const rows = await this.prisma.delivery.findMany({
      where: { AND: where },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit + 1,
      select: DELIVERY_VIEW_COLUMNS,
    });
    const { page, next_cursor } = keysetPage(rows, limit);
    return { deliveries: page.map(toDeliveryView), next_cursor };
  }

  async get(request: DeliveryGetRequest): Promise<DeliveryDetailView> {
    const row = await this.prisma.delivery.findFirst({
      where: ownDelivery(request),
      select: { ...DELIVERY_VIEW_COLUMNS, attempts: { orderBy: { number: 'asc' } } },
    });
    if (!row) throw notFound(request.delivery_id);
    return { ...toDeliveryView(row), attempts: row.attempts.map(toAttemptView) };
  }

  /**
   * Queues another delivery now. A delivered or dead delivery starts a fresh round (the full retry
   * schedule again); a pending one is brought forward. While an attempt is in flight the request is
   * recorded and applied when that attempt ends, so two attempts never overlap. `requestId` (the RPC
   * request's correlation id) makes a replay of the same request (a dispatcher that crashed after applying
   * it and before committing its offset) answer without starting another round.
   */
  async redeliver(request: DeliveryGetRequest, requestId?: string): Promise<DeliveryView> {
    const apply = (tx: Prisma.TransactionClient) => this.requestRedelivery(tx, request);
    let row: DeliveryViewRow;
    if (requestId) {
      const done = await this.inbox.once(REDELIVER_INBOX, requestId, apply);
      row = done.applied ? done.result : await this.viewOf(request);
    } else row = await this.prisma.$transaction(apply);
    this.scheduler.poke();
    return { ...toDeliveryView(row), status: 'pending' };
  }

  private async requestRedelivery(tx: Prisma.TransactionClient, request: DeliveryGetRequest): Promise<DeliveryViewRow> {
    const found = await tx.delivery.findFirst({
      where: ownDelivery(request),
      select: { id: true },
    });
    if (!found) throw notFound(request.delivery_id);
    const [locked] = await tx.$queryRaw<{ in_flight: boolean }[]>`
      select (lease_token is not null and lease_until > now()) as in_flight from delivery where id = ${found.id} for update`;
    if (locked.in_flight)
      return tx.delivery.update({ where: { id: found.id }, data: { redeliverRequested: true }, select: DELIVERY_VIEW_COLUMNS });
    await tx.$executeRaw`
      update delivery set status = 'pending', next_attempt_at = now(), dead_at = null,
        round_failures = case when status = 'pending' then round_failures else 0 end, updated_at = now()
      where id = ${found.id}`;
    return tx.delivery.findUniqueOrThrow({ where: { id: found.id }, select: DELIVERY_VIEW_COLUMNS });
  }

  private async viewOf(request: DeliveryGetRequest): Promise<DeliveryViewRow> {
    const row = await this.prisma.delivery.findFirst({
      where: ownDelivery(request),
      select: DELIVERY_VIEW_COLUMNS,
    });
    if (!row) throw notFound(request.delivery_id);
    return row;
  }
}

/** The inbox consumer under which applied redelivery requests are remembered (by correlation id). */
const REDELIVER_INBOX = 'webhook-dispatcher.redeliver';

/** The delivery a Delivery API request names, if the caller's scope may see it. */
const ownDelivery = (request: DeliveryGetRequest): Prisma.DeliveryWhereInput => ({
  AND: [{ id: request.delivery_id }, scopeWhere(request.scope)],
});

const notFound = (id: string) => new DomainError(ErrorCode.NotFound, `delivery ${id} not found`);
