import type { Message, ProducerBatch } from 'kafkajs';
import { MessageTooLargeError, recordSize } from './message-size';
import { KafkaProducer } from './producer';

/** A KafkaProducer whose kafkajs producer records each produce request; topics limited to `maxBytes`. */
function producerWith(maxBytes: number, fail?: (batch: ProducerBatch) => unknown) {
  const producer = new KafkaProducer({ brokers: ['127.0.0.1:1'], app: 'unit', instanceId: 'unit' });
  const requests: { topic: string; values: string[] }[][] = [];
  const internals = producer as unknown as {
    producer: unknown;
    connecting: Promise<void>;
    maxMessageBytes: (topic: string) => Promise<number>;
  };
  internals.connecting = Promise.resolve();
  internals.maxMessageBytes = async () => maxBytes;
  internals.producer = {
    sendBatch: async (batch: ProducerBatch) => {
      const error = fail?.(batch);
      if (error) throw error;
      requests.push(
        (batch.topicMessages ?? []).map(({ topic, messages }) => ({ topic, values: messages.map((m: Message) => String(m.value)) })),
      );
      await new Promise((r) => setTimeout(r, 1));
    },
  };
  return { producer, requests };
}

const value = (n: number, bytes: number) => `${n}:`.padEnd(bytes, 'x');

describe('KafkaProducer', () => {
  it('merges the sends of one turn into one produce request, in call order', async () => {
    const { producer, requests } = producerWith(1_000_000);
    await Promise.all(Array.from({ length: 300 }, (_, n) => producer.send(n % 2 ? 'a' : 'b', [{ value: String(n) }])));
    expect(requests).toHaveLength(1);
    const [a, b] = [requests[0].find((t) => t.topic === 'a')!, requests[0].find((t) => t.topic === 'b')!];
    expect(a.values).toEqual(Array.from({ length: 150 }, (_, i) => String(2 * i + 1)));
    expect(b.values).toEqual(Array.from({ length: 150 }, (_, i) => String(2 * i)));
  });

  it('merges concurrent sends in linear work: 4 times the sends, 4 times the element copies of its queue and messages', async () => {
    /**
     * Element reads, writes and deletes made on the producer's queue of sends and on each send's messages: every
     * copy, push, shift or splice of those arrays goes through them (a Proxy sees each element an array method touches).
     */
    async function elementOperations(sends: number): Promise<{ operations: number; produced: number; requests: number }> {
      const { producer, requests } = producerWith(1_000_000);
      let operations = 0;
      const counting = <T extends object>(array: T[]): T[] =>
        new Proxy(array, {
          get: (target, property, receiver) => {
            if (typeof property === 'string' && /^\d+$/.test(property)) operations++;
            return Reflect.get(target, property, receiver) as unknown;
          },
          set: (target, property, value: unknown, receiver) => {
            if (typeof property !== 'string' || !/^\d+$/.test(property)) return Reflect.set(target, property, value, receiver);
            operations++;
            const send = value as { messages?: object[] } | null;
            // A send entering the queue: its messages are counted from then on (the merge reads them from there).
            if (send?.messages && !proxies.has(send.messages)) {
              send.messages = counting(send.messages);
              proxies.add(send.messages);
            }
            return Reflect.set(target, property, value, receiver);
          },
          deleteProperty: (target, property) => {
            if (typeof property === 'string' && /^\d+$/.test(property)) operations++;
            return Reflect.deleteProperty(target, property);
          },
        });
      const proxies = new WeakSet<object>();
      (producer as unknown as { queue: { sends: unknown[] } }).queue.sends = counting<object>([]);
      // One message per send, alternating two topics: the most sends to merge per message.
      await Promise.all(Array.from({ length: sends }, (_, n) => producer.send(n % 2 ? 'a' : 'b', [{ value: String(n) }])));
      const produced = requests.flatMap((request) => request.flatMap((topic) => topic.values));
      return { operations, produced: new Set(produced).size, requests: requests.length };
    }
    // More sends than one produce request takes (1,000), so the queue is taken from in several requests.
    const n = 2_000;
    const few = await elementOperations(n);
    const many = await elementOperations(4 * n);
    expect([few.produced, many.produced]).toEqual([n, 4 * n]);
    expect(many.requests).toBeGreaterThan(few.requests);
    // Linear: 4 times the operations, give or take where the queue's compactions fall (each copies what is left, at most
    // what was taken since the last one). Re-copying the sends behind those taken, as splice(0, n) did, made it 7.4 times here.
    expect(many.operations / few.operations).toBeLessThanOrEqual(4 * 1.25);
  });

  it('splits a send larger than its topic allows into requests that each fit, keeping order', async () => {
    const limit = 20_000;
    const { producer, requests } = producerWith(limit);
    const values = Array.from({ length: 100 }, (_, n) => value(n, 1_000));
    await producer.send(
      't',
      values.map((v) => ({ value: v })),
    );
    expect(requests.length).toBeGreaterThan(4);
    for (const request of requests) {
      const bytes = request[0].values.reduce((sum, v) => sum + recordSize({ value: v, key: null }), 0);
      expect(bytes).toBeLessThanOrEqual(limit);
    }
    expect(requests.flatMap((r) => r[0].values)).toEqual(values);
  });

  it('fails a message that can never fit with MessageTooLargeError, producing none of its send, and keeps the others flowing', async () => {
    const { producer, requests } = producerWith(10_000);
    const ok = producer.send('t', [{ value: 'before' }]);
    const tooLarge = producer.send('t', [{ value: 'small' }, { value: value(1, 20_000) }]);
    const after = producer.send('t', [{ value: 'after' }]);
    await expect(tooLarge).rejects.toMatchObject({ name: 'MessageTooLargeError', topic: 't', index: 1, maxBytes: 10_000 });
    await expect(tooLarge).rejects.toBeInstanceOf(MessageTooLargeError);
    await Promise.all([ok, after]);
    expect(requests.flatMap((r) => r.flatMap((t) => t.values))).toEqual(['before', 'after']);
  });

  it('splits again, down to the one message, when the broker refuses a request as too large', async () => {
    const brokerRefusesOver = 3_000;
    const { producer, requests } = producerWith(1_000_000, (batch) => {
      const bytes = (batch.topicMessages ?? []).flatMap((t) => t.messages).reduce((sum, m) => sum + String(m.value).length, 0);
      return bytes > brokerRefusesOver ? Object.assign(new Error('too large'), { type: 'MESSAGE_TOO_LARGE' }) : undefined;
    });
    const fine = producer.send(
      't',
      Array.from({ length: 6 }, (_, n) => ({ value: value(n, 1_000) })),
    );
    const huge = producer.send('u', [{ value: value(9, 5_000) }]);
    await fine;
    await expect(huge).rejects.toMatchObject({ name: 'MessageTooLargeError', topic: 'u', index: 0 });
    expect(requests.flatMap((r) => r.flatMap((t) => t.values))).toEqual(Array.from({ length: 6 }, (_, n) => value(n, 1_000)));
  });

  it('shuts down in bounded time when Kafka never answers, failing the sends it could not produce', async () => {
    const producer = new KafkaProducer({ brokers: ['127.0.0.1:1'], app: 'unit', instanceId: 'unit' });
    const internals = producer as unknown as { producer: unknown; connecting: Promise<void>; maxMessageBytes: () => Promise<number> };
    internals.connecting = Promise.resolve();
    internals.maxMessageBytes = async () => 1_000_000;
    let disconnected = false;
    // A produce request retried forever, as a kafkajs producer that lived through a broker restart may do.
    let produceStarted!: () => void;
    const producing = new Promise<void>((resolve) => (produceStarted = resolve));
    internals.producer = {
      sendBatch: () => {
        produceStarted();
        return new Promise(() => undefined);
      },
      disconnect: async () => void (disconnected = true),
    };
    const inFlight = producer.send('t', [{ value: 'in flight' }]);
    await producing;
    const queued = producer.send('t', [{ value: 'queued' }]);
    const queuedOutcome = queued.then(
      () => 'produced',
      (error: Error) => error.message,
    );
    void inFlight.catch(() => undefined);
    await producer.onApplicationShutdown();
    expect(disconnected).toBe(true);
    await expect(queuedOutcome).resolves.toMatch(/shutting down/);
  }, 20_000);
});
