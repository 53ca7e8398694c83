import { IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID } from 'class-validator';

/**
 * What every domain event looks like on Kafka. `id` is unique per event and is what consumers dedupe on
 * (inbox); `type` equals the topic it was written to; `data` is the topic's payload class.
 */
export class EventEnvelope<T> {
  @IsUUID() id!: string;
  @IsString() type!: string;
  @IsISO8601() occurred_at!: string;
  @IsObject() data!: T;
}

/** The CloudEvents version the binary-mode headers follow. */
export const CLOUDEVENTS_SPEC_VERSION = '1.0';

/**
 * CloudEvents 1.0 attributes in the Kafka protocol binding's binary mode: any CloudEvents SDK reads a
 * domain event from them, its `data` being the whole EventEnvelope (docs/events.md).
 */
export class CloudEventHeaders {
  /** Equals the envelope's id (and `event-id`). */
  @IsUUID() ce_id!: string;
  /** The app that wrote the event, as a URI reference: `/workline/<app>` (e.g. `/workline/performance`). */
  @IsString() ce_source!: string;
  /** The topic name, which is also the envelope's `type` (e.g. `workline.performance.quality-review.for-qc.v1`). */
  @IsString() ce_type!: string;
  /** The envelope's occurred_at (RFC 3339, UTC). */
  @IsISO8601() ce_time!: string;
  @IsIn([CLOUDEVENTS_SPEC_VERSION]) ce_specversion!: typeof CLOUDEVENTS_SPEC_VERSION;
  /** The value's media type: the envelope is JSON. */
  @IsIn(['application/json']) 'content-type'!: 'application/json';
}

/** The CloudEvents headers of an event written by `app` (libs/messaging's outbox relay adds them on publish). */
export function cloudEventHeaders(
  envelope: Pick<EventEnvelope<unknown>, 'id' | 'type' | 'occurred_at'>,
  app: string,
): Record<keyof CloudEventHeaders, string> {
  return {
    ce_id: envelope.id,
    ce_source: `/workline/${app}`,
    ce_type: envelope.type,
    ce_time: envelope.occurred_at,
    ce_specversion: CLOUDEVENTS_SPEC_VERSION,
    'content-type': 'application/json',
  };
}

/**
 * Kafka headers of every domain event (the outbox relay in libs/messaging writes them). Header values are
 * strings. The CloudEvents attributes come from CloudEventHeaders; the AsyncAPI document (npm run
 * asyncapi) shows them all on every domain event.
 */
export class DomainEventHeaders extends CloudEventHeaders {
  /** Equals the envelope's id: consumers dedupe on it. */
  @IsUUID() 'event-id'!: string;
  /** The id of the API request that caused the event, when one did (docs/operations.md, "Logs and request ids"). */
  @IsOptional() @IsString() 'request-id'?: string;
}

/**
 * Kafka headers a message gets on Topic.DeadLetter (libs/messaging), beside the headers it had on its original
 * topic. Partition, offset and consumer group are there when a consumer gave up on the message.
 */
export class DeadLetterHeaders {
  @IsString() 'dlq-original-topic'!: string;
  @IsOptional() @IsString() 'dlq-original-partition'?: string;
  @IsOptional() @IsString() 'dlq-original-offset'?: string;
  @IsOptional() @IsString() 'dlq-consumer-group'?: string;
  /** Why it failed (at most 1,000 characters). */
  @IsString() 'dlq-error'!: string;
  @IsString() 'dlq-attempts'!: string;
  @IsISO8601() 'dlq-failed-at'!: string;
}
