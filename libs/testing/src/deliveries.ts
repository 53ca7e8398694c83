import { BaseEnv, loadEnv } from '@workline/config';
import { type DeliveryRequestedEvent, type EventEnvelope, Topic } from '@workline/contracts';
import { KafkaProducer } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { testStack } from './stack';

export type DeliveryRequestInput = Omit<DeliveryRequestedEvent, 'delivery_id'> & { delivery_id?: string };

/**
 * Asks the webhook-dispatcher for deliveries the way oversight and platform-runs do: a
 * DeliveryRequested event on Kafka, secrets sealed with the stack's SECRETS_KEY.
 */
export class DeliveryRequester {
  readonly box: SecretBox;
  private readonly producer: KafkaProducer;

  constructor() {
    const stack = testStack();
    this.box = new SecretBox(loadEnv(BaseEnv, stack.appEnv).secretsKey);
    this.producer = new KafkaProducer({ brokers: stack.kafkaBrokers, app: 'test-deliveries', instanceId: randomUUID().slice(0, 8) });
  }

  /** Publishes one request (any payload, for bad-input tests) and returns its event id. */
  async publish(data: unknown, key: string | null = null): Promise<string> {
    const id = randomUUID();
    const envelope: EventEnvelope<unknown> = { id, type: Topic.DeliveryRequested, occurred_at: new Date().toISOString(), data };
    await this.producer.send(Topic.DeliveryRequested, [{ key, value: envelope }]);
    return id;
  }

  /** Publishes a delivery request and returns it with its delivery id. */
  async request(input: DeliveryRequestInput): Promise<DeliveryRequestedEvent> {
    const event: DeliveryRequestedEvent = { ...input, delivery_id: input.delivery_id ?? `dlv_${randomUUID()}` };
    await this.publish(event, event.delivery_id);
    return event;
  }

  close(): Promise<void> {
    return this.producer.onApplicationShutdown();
  }
}
