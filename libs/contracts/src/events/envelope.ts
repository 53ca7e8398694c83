import { randomUUID } from 'node:crypto';
import { IsIn, IsISO8601, IsObject, IsOptional, IsString, IsUUID } from 'class-validator';
import { Topic } from '../topics';

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
 * CloudEvents 1.0 attributes in the Kafka protocol binding's binary mode, so that any CloudEvents SDK reads a
 * message of a public topic (docs/events.md): the required context attributes every kind of message carries.
 */
class CloudEventAttributes {
  @IsUUID() ce_id!: string;
  /** The app that wrote the message, as a URI reference: `/workline/<app>` (e.g. `/workline/performance`). */
  @IsString() ce_source!: string;
  @IsString() ce_type!: string;
  /** RFC 3339, UTC. */
  @IsISO8601() ce_time!: string;
  @IsIn([CLOUDEVENTS_SPEC_VERSION]) ce_specversion!: typeof CLOUDEVENTS_SPEC_VERSION;
}

/**
 * A domain event's CloudEvents attributes, its data the whole EventEnvelope: ce_id is the envelope's id (and
 * `event-id`), ce_type the topic name (also the envelope's `type`), ce_time the envelope's occurred_at.
 */
export class CloudEventHeaders extends CloudEventAttributes {
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

/** The media type of a dead letter's value: JSON when it is, else bytes as they came. */
export const DEAD_LETTER_CONTENT_TYPES = ['application/json', 'application/octet-stream'] as const;

/**
 * Kafka headers a message gets on Topic.DeadLetter (libs/messaging), beside the headers it had on its original
 * topic. Partition, offset and consumer group are there when a consumer gave up on the message. A dead letter
 * is a CloudEvent of its own (type Topic.DeadLetter, from the app that gave up, its subject the original
 * topic): its ce_* attributes replace the original's, whose id stays in `event-id` and type in
 * `dlq-original-topic`. ce_id is new, the dead letter's own; ce_type is Topic.DeadLetter; ce_time is `dlq-failed-at`.
 */
export class DeadLetterHeaders extends CloudEventAttributes {
  /** The topic the message came from (`dlq-original-topic`). */
  @IsString() ce_subject!: string;
  /** The original's content-type when it had one; else JSON when the value parses as JSON, bytes otherwise. */
  @IsIn(DEAD_LETTER_CONTENT_TYPES) 'content-type'!: (typeof DEAD_LETTER_CONTENT_TYPES)[number];
  @IsString() 'dlq-original-topic'!: string;
  @IsOptional() @IsString() 'dlq-original-partition'?: string;
  @IsOptional() @IsString() 'dlq-original-offset'?: string;
  @IsOptional() @IsString() 'dlq-consumer-group'?: string;
  /** Why it failed (at most 1,000 characters). */
  @IsString() 'dlq-error'!: string;
  @IsString() 'dlq-attempts'!: string;
  @IsISO8601() 'dlq-failed-at'!: string;
}

const isJson = (value: Buffer | string): boolean => {
  try {
    JSON.parse(value.toString());
    return true;
  } catch {
    return false;
  }
};

/**
 * The headers of the dead letter of a message of `originalTopic` with `value` and `headers`, given up by `app`
 * after `attempts` tries for `reason`: its original headers, its CloudEvents attributes and the dlq-* ones.
 */
export function deadLetterHeaders(
  { app, originalTopic, value, headers }: { app: string; originalTopic: string; value: Buffer | string; headers: Record<string, string> },
  failure: Pick<DeadLetterHeaders, 'dlq-error' | 'dlq-attempts' | 'dlq-original-partition' | 'dlq-original-offset' | 'dlq-consumer-group'>,
): Record<string, string> {
  const failedAt = new Date().toISOString();
  const given = headers['content-type'];
  const dead: DeadLetterHeaders = {
    ce_id: randomUUID(),
    ce_source: `/workline/${app}`,
    ce_type: Topic.DeadLetter,
    ce_time: failedAt,
    ce_specversion: CLOUDEVENTS_SPEC_VERSION,
    ce_subject: originalTopic,
    'content-type': (DEAD_LETTER_CONTENT_TYPES as readonly string[]).includes(given)
      ? (given as DeadLetterHeaders['content-type'])
      : isJson(value)
        ? 'application/json'
        : 'application/octet-stream',
    'dlq-original-topic': originalTopic,
    ...failure,
    'dlq-error': failure['dlq-error'].slice(0, 1000),
    'dlq-failed-at': failedAt,
  };
  return { ...headers, ...(Object.fromEntries(Object.entries(dead).filter(([, v]) => v !== undefined)) as Record<string, string>) };
}
