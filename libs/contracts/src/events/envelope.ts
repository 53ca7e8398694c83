import { IsISO8601, IsObject, IsOptional, IsString, IsUUID } from 'class-validator';

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

/**
 * Kafka headers of every domain event (the outbox relay in libs/kafka writes them). Header values are
 * strings. CloudEvents 1.0 attributes in the Kafka binary binding (ce_id, ce_source, ce_type, ce_time,
 * ce_specversion, content-type) belong here: declare them in a class of their own and extend it from this
 * one; the AsyncAPI document (npm run asyncapi) then shows them on every domain event.
 */
export class DomainEventHeaders {
  /** Equals the envelope's id: consumers dedupe on it. */
  @IsUUID() 'event-id'!: string;
  /** The id of the API request that caused the event, when one did (docs/operations.md, "Logs and request ids"). */
  @IsOptional() @IsString() 'request-id'?: string;
}

/**
 * Kafka headers a message gets on Topic.DeadLetter (libs/kafka), beside the headers it had on its original
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
