import { BaseEnv, loadEnv } from '@workline/config';
import { type DeliveryRequestedEvent, type EventEnvelope, Topic } from '@workline/contracts';
import { KafkaProducer } from '@workline/messaging';
import { SecretBox } from '@workline/secrets';
import { randomUUID } from 'node:crypto';
import { eventually } from './eventually';
import { dbQuery } from './faults';
import { LoopbackReceiver } from './receiver';
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

  /** Publishes the requests in parallel chunks, like a busy outbox relay, and returns their delivery ids in order. */
  async requestAll(inputs: DeliveryRequestInput[]): Promise<string[]> {
    const ids: string[] = [];
    for (let from = 0; from < inputs.length; from += 50) {
      const sent = await Promise.all(inputs.slice(from, from + 50).map((input) => this.request(input)));
      ids.push(...sent.map((event) => event.delivery_id));
    }
    return ids;
  }

  close(): Promise<void> {
    return this.producer.onApplicationShutdown();
  }
}

/** Each delivery's state as the dispatcher's tables hold it: its attempts, and how many of them a 2xx answered. */
export interface DeliveryCounts extends Record<string, unknown> {
  id: string;
  status: string;
  attempt_count: number;
  attempts: number;
  successes: number;
}

/** Reads the dispatcher's tables: the delivery rows are the ground truth of "exactly one success recorded". */
export const deliveryCounts = (ids: string[]): Promise<DeliveryCounts[]> =>
  dbQuery<DeliveryCounts>(
    `select d.id, d.status, d.attempt_count, count(a.number)::int as attempts,
       (count(a.number) filter (where a.status_code between 200 and 299))::int as successes
     from delivery d left join delivery_attempt a on a.delivery_id = d.id
     where d.id = any($1) group by d.id`,
    [ids],
  );

export const deliveredCount = async (ids: string[]): Promise<number> =>
  (await deliveryCounts(ids)).filter((row) => row.status === 'delivered').length;

export const allDelivered = (ids: string[], timeoutMs: number): Promise<true> =>
  eventually(async () => (await deliveredCount(ids)) === ids.length || undefined, {
    what: `${ids.length} deliveries to be delivered`,
    timeoutMs,
    intervalMs: 250,
  });

/**
 * What a dispatcher suite works with: a requester, loopback receivers made on demand, and task events
 * (numbered, with exact bytes to check) signed with `secret`. `close` stops them all.
 */
export function dispatcherFixture(secret: string) {
  const suffix = randomUUID().slice(0, 8);
  const requester = new DeliveryRequester();
  const receivers: LoopbackReceiver[] = [];
  const sealed = requester.box.seal(secret);
  return {
    suffix,
    requester,
    receiver: async (): Promise<LoopbackReceiver> => {
      const started = await new LoopbackReceiver().start();
      receivers.push(started);
      return started;
    },
    event: (url: string, n: number): DeliveryRequestInput => ({
      owner: { account_id: `acct-${suffix}` },
      subject: { task_id: `task-${suffix}-${n}` },
      event_type: 'task.result_available',
      url,
      body: JSON.stringify({ uuid: randomUUID(), event_type: 'task.result_available', n, note: 'exact bytes ✓' }),
      signing: 'x-svc-signature',
      sealed_secret: sealed,
    }),
    close: async (): Promise<void> => {
      await requester.close();
      await Promise.all(receivers.map((started) => started.stop()));
    },
  };
}
