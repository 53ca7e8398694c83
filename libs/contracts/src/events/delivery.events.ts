import { Type } from 'class-transformer';
import { IsIn, IsInt, IsObject, IsOptional, IsString, IsUrl, MaxLength, Min, ValidateIf, ValidateNested } from 'class-validator';

/**
 * Topic.DeliveryRequested: "post this exact body to this URL, durably, with retries". Written by
 * oversight (task events) and platform-runs (run callbacks) through their outbox; the webhook-dispatcher
 * owns everything after that. Secrets travel sealed with the shared SECRETS_KEY (libs/secrets SecretBox).
 */
export class DeliveryOwner {
  /** Every delivery belongs to an account; the Delivery API shows it only to that account's callers. */
  @IsString() account_id!: string;
  /** Set for oversight deliveries: x-api-key callers see their workstream's deliveries. */
  @IsOptional() @IsString() workstream_id?: string;
}

export class DeliverySubject {
  @IsOptional() @IsString() task_id?: string;
  @IsOptional() @IsString() run_id?: string;
}

export const DELIVERY_SIGNING = ['x-svc-signature', 'none'] as const;
export type DeliverySigning = (typeof DELIVERY_SIGNING)[number];

/** Which delivery, whose, about what and where it goes: what a delivery's request and its dead event share. */
export class DeliveryIdentity {
  /** Stable id of this delivery, sent as X-SVC-Delivery-Id and unchanged across retries. */
  @IsString() @MaxLength(100) delivery_id!: string;
  // IsObject: ValidateNested alone lets a missing object through.
  @IsObject() @ValidateNested() @Type(() => DeliveryOwner) owner!: DeliveryOwner;
  @IsObject() @ValidateNested() @Type(() => DeliverySubject) subject!: DeliverySubject;
  /** e.g. task.result_available, task.error, run.processed, batch.completed */
  @IsString() event_type!: string;
  /** Without userinfo: credentials travel in sealed_authorization. */
  @IsUrl({ require_tld: false, require_protocol: true, protocols: ['http', 'https'] }) url!: string;
}

export class DeliveryRequestedEvent extends DeliveryIdentity {
  /** The exact bytes to send (UTF-8 JSON text); signed as they are. */
  @IsString() body!: string;
  @IsIn(DELIVERY_SIGNING) signing!: DeliverySigning;
  /** Sealed API key that signs X-SVC-Signature: required when signing = x-svc-signature. */
  @ValidateIf((event: DeliveryRequestedEvent) => event.signing === 'x-svc-signature' || event.sealed_secret !== undefined)
  @IsString()
  sealed_secret?: string;
  /** Sealed `Authorization` header value, e.g. Basic credentials taken from the callback URL. */
  @IsOptional() @IsString() sealed_authorization?: string;
}

/** Topic.DeliveryDead: a delivery failed its last retry. */
export class DeliveryDeadEvent extends DeliveryIdentity {
  @IsInt() @Min(1) attempts!: number;
  /** The last attempt's error or HTTP status. */
  @IsString() last_error!: string;
}
