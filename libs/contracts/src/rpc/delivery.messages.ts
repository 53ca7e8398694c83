import { Type } from 'class-transformer';
import { IsIn, IsOptional, IsString, MaxLength, ValidateIf, ValidateNested } from 'class-validator';
import { PAGE_MAX, PageQuery } from '../keyset-cursor';

/** Delivery API (docs/webhooks.md): what a caller may see of the webhook-dispatcher's deliveries. */

export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

export const DELIVERY_PAGE_MAX = PAGE_MAX;
export const DELIVERY_PAGE_DEFAULT = 20;

/** GET /v1/deliveries query string. */
export class ListDeliveriesQuery extends PageQuery {
  @IsOptional()
  @IsString()
  @MaxLength(200)
  task_id?: string;

  @IsOptional()
  @IsIn(DELIVERY_STATUSES, { message: 'status must be one of: pending, delivered, dead' })
  status?: DeliveryStatus;
}

/**
 * Whose deliveries a caller sees. An x-api-key of a workstream: that workstream's; an account-level key:
 * every workstream of its account; HTTP Basic: the account's platform callbacks (no workstream).
 */
export const DELIVERY_SCOPE_KINDS = ['workstream', 'account-workstreams', 'platform'] as const;
export type DeliveryScopeKind = (typeof DELIVERY_SCOPE_KINDS)[number];

export class DeliveryScope {
  @IsIn(DELIVERY_SCOPE_KINDS) kind!: DeliveryScopeKind;
  @IsString() account_id!: string;
  @ValidateIf((scope: DeliveryScope) => scope.kind === 'workstream') @IsString() workstream_id?: string;
}

export class DeliveryListRequest extends ListDeliveriesQuery {
  @ValidateNested() @Type(() => DeliveryScope) scope!: DeliveryScope;
}

export class DeliveryGetRequest {
  @ValidateNested() @Type(() => DeliveryScope) scope!: DeliveryScope;
  @IsString() @MaxLength(200) delivery_id!: string;
}

export class DeliveryRedeliverRequest extends DeliveryGetRequest {}

export interface DeliveryAttemptView {
  number: number;
  attempted_at: string;
  /** null when no HTTP status came back (timeout, connection error, refused address). */
  status_code: number | null;
  duration_ms: number;
  error: string | null;
  /** At most 1 KB of the receiver's answer. */
  response_excerpt: string | null;
}

export interface DeliveryView {
  id: string;
  event_type: string;
  task_id: string | null;
  run_id: string | null;
  /** Never carries credentials. */
  url: string;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: string;
  delivered_at: string | null;
  dead_at: string | null;
}

export interface DeliveryDetailView extends DeliveryView {
  attempts: DeliveryAttemptView[];
}

export interface DeliveryPage {
  deliveries: DeliveryView[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}
