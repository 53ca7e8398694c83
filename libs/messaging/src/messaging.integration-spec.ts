import 'reflect-metadata';
import { Controller, type DynamicModule, type INestMicroservice, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Ctx, EventPattern, MessagePattern, Payload } from '@nestjs/microservices';
import { Topic, TOPIC_SPECS, type EventEnvelope } from '@workline/contracts';
import { DbModule, DbPool, PrismaService } from '@workline/db';
import { AppMetrics, REQUEST_ID_KAFKA_HEADER } from '@workline/observability';
import { eventually, testStack, callsOnly, TcpProxy } from '@workline/testing';
import { randomUUID } from 'node:crypto';
import { connect } from 'node:net';
import { Inbox, INBOX_RETENTION_MS, InboxPruner } from './inbox';
import { KafkaModule } from './kafka.module';
import { createKafka, type KafkaSettings } from './kafka.settings';
import { BATCH_ROW_MAX_CHARS } from './outbox-batch-rows';
import { OutboxRelay } from './outbox-relay';
import { enqueueEvent, enqueueEventBatch } from './outbox-writer';
import { KafkaProducer } from './producer';
import { RequestQueue, type RequestQueueInternals } from './kafkajs-request-queue';
import { DomainErrorRpcFilter } from './rpc-error.filter';
import { ensureTopics } from './topics.admin';
import { EventBatchPattern, IdempotentPattern, type KafkaBatchContext, type KafkaMessageContext } from './message-context';
import { decodeHeaders } from './message-errors';
import { KafkaRpcClient } from './rpc-client';
import { KafkaTransport } from './transport';

// It calls no app: Kafka, PostgreSQL and Redis only, so it runs beside files that disturb the apps (libs/testing/src/stack-turns.ts).
callsOnly([]);

const suffix = randomUUID().slice(0, 8);
const PROBE_TOPIC = `workline.test.probe-${suffix}.v1`;
const POISON_TOPIC = `workline.test.poison-${suffix}.v1`;
const SOURCE = `test-${suffix}`;
/** The tests' own transactions write many outbox rows one by one: 5 s (Prisma's default) is short on a loaded machine. */
const TEST_TRANSACTION = { timeout: 30_000, maxWait: 30_000 };
/** A topic with a small max.message.bytes, so that a few events fill it. */
const LIMITED_TOPIC = `workline.test.limited-${suffix}.v1`;
const LIMITED_MAX_BYTES = 100_000;
const BATCH_TOPIC = `workline.test.batch-${suffix}.v1`;

/** What the consumer saw: every delivery, and calls per poison-topic message. */
const deliveries: string[] = [];
const poisonTopicCalls = new Map<string, number>();
const poisonTopicHandled: string[] = [];
let handlerDelayMs = 0;
const limitedReceived: string[] = [];
/** Each limited-topic event's key and headers, by event id. */
const limitedMeta = new Map<string, { key: string | null; headers: Record<string, string>; envelope: EventEnvelope<unknown> }>();
/** The batch handler: the ids of each call, what it handled, and a gate that holds its calls. */
const batchCalls: { ids: string[]; attempt: number; requestIds: (string | undefined)[] }[] = [];
const batchHandled: string[] = [];
let batchGate: Promise<void> = Promise.resolve();

@Controller()
class ProbeConsumer {
  constructor(private readonly inbox: Inbox) {}

  @EventPattern(PROBE_TOPIC)
  async onProbe(@Payload() envelope: EventEnvelope<{ n: number }>): Promise<void> {
    deliveries.push(envelope.id);
    if (handlerDelayMs) await new Promise((r) => setTimeout(r, handlerDelayMs));
    await this.inbox.once(
      SOURCE,
      envelope.id,
      (tx) => tx.$executeRaw`insert into test_probe_applied (event_id, n) values (${envelope.id}, ${envelope.data.n})`,
    );
  }

  @EventPattern(LIMITED_TOPIC)
  onLimited(@Payload() envelope: EventEnvelope<unknown>, @Ctx() context: KafkaMessageContext): void {
    limitedReceived.push(envelope.id);
    limitedMeta.set(envelope.id, { key: context.meta.key, headers: context.meta.headers, envelope });
  }

  @EventBatchPattern(BATCH_TOPIC)
  async onBatch(@Payload() values: { id: string; poison?: boolean }[], @Ctx() context: KafkaBatchContext): Promise<void> {
    batchCalls.push({
      ids: values.map((v) => v.id),
      attempt: context.messages[0].attempt,
      requestIds: context.messages.map((m) => m.headers[REQUEST_ID_KAFKA_HEADER]),
    });
    await batchGate;
    const poison = values.find((v) => v.poison);
    if (poison) throw new Error(`message ${poison.id} can never be handled`);
    batchHandled.push(...values.map((v) => v.id));
  }

  @EventPattern(POISON_TOPIC)
  onMaybePoison(@Payload() value: { id: string; poison?: boolean; unreachableTries?: number }, @Ctx() context: KafkaMessageContext): void {
    poisonTopicCalls.set(value.id, context.meta.attempt);
    if (value.poison) throw new Error(`message ${value.id} can never be handled`);
    // The database's error while it restarts (SQLSTATE 57P01), for the message's first tries.
    if (context.meta.attempt <= (value.unreachableTries ?? 0))
      throw Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    poisonTopicHandled.push(value.id);
  }
}

const RPC_TOPIC = `workline.test.rpc-${suffix}.v1`;
const RPC_PATTERN = 'probe.echo';
const UNSAFE_RPC_PATTERN = 'probe.echo-unsafe';
/** Requests the RPC probe answered, by their data. */
const rpcAnswered: string[] = [];

@Controller()
class RpcProbe {
  @IdempotentPattern(RPC_PATTERN)
  echo(@Payload() data: string): string {
    rpcAnswered.push(data);
    return data;
  }

  /** A request that must not run twice (no IdempotentPattern). */
  @MessagePattern(UNSAFE_RPC_PATTERN)
  echoUnsafe(@Payload() data: string): string {
    rpcAnswered.push(data);
    return data;
  }
}

@Module({ controllers: [RpcProbe] })
class RpcProbeModule {}

@Module({})
class ProbeModule {
  static register(settings: KafkaSettings, databaseUrl: string): DynamicModule {
    return {
      module: ProbeModule,
      imports: [DbModule.forRoot(databaseUrl), KafkaModule.forRoot({ settings })],
      controllers: [ProbeConsumer],
    };
  }
}

describe('Kafka plumbing: outbox relay, inbox dedupe, dead letters (real Kafka and PostgreSQL)', () => {
  const stack = testStack();
  const settings: KafkaSettings = { brokers: stack.kafkaBrokers, app: `test-${suffix}`, instanceId: 'jest' };
  const prisma = new PrismaService(stack.databaseUrl);
  const producer = new KafkaProducer(settings);
  const relayDb = new DbPool(stack.databaseUrl, { size: 2 });
  const relay = new OutboxRelay(relayDb, producer, { source: SOURCE });
  let consumer: INestMicroservice | undefined;

  const startConsumer = async () => {
    const app = await NestFactory.createMicroservice(ProbeModule.register(settings, stack.databaseUrl), {
      strategy: new KafkaTransport({ settings, maxAttempts: 3, retryBackoffMs: 50 }),
      logger: ['error'],
    });
    app.useGlobalFilters(new DomainErrorRpcFilter());
    await app.listen();
    return app;
  };

  const applied = async () => {
    const rows = await prisma.$queryRaw<
      { total: bigint; distinct_ids: bigint }[]
    >`select count(*) as total, count(distinct event_id) as distinct_ids from test_probe_applied`;
    return { total: Number(rows[0].total), distinct: Number(rows[0].distinct_ids) };
  };

  const enqueue = (from: number, count: number) =>
    prisma.$transaction(async (tx) => {
      for (let n = from; n < from + count; n++) await enqueueEvent(tx, SOURCE, PROBE_TOPIC, { n }, { key: `key-${n % 7}` });
    }, TEST_TRANSACTION);

  beforeAll(async () => {
    await prisma.$executeRawUnsafe(
      'create table if not exists test_probe_applied (event_id text not null, n int not null, applied_at timestamptz default now())',
    );
    await prisma.$executeRawUnsafe('truncate test_probe_applied');
    await ensureTopics(settings, {
      [PROBE_TOPIC]: { partitions: 3, retentionHours: 1 },
      [POISON_TOPIC]: { partitions: 1, retentionHours: 1 },
      [LIMITED_TOPIC]: { partitions: 3, retentionHours: 1, maxMessageBytes: LIMITED_MAX_BYTES },
      [BATCH_TOPIC]: { partitions: 1, retentionHours: 1 },
    });
    consumer = await startConsumer();
  });

  afterAll(async () => {
    await consumer?.close();
    await producer.onApplicationShutdown();
    await prisma.$disconnect();
    await relayDb.end();
  });

  it('applies each event once when the relay publishes it twice', async () => {
    await enqueue(0, 50);
    expect(await relay.relayOnce()).toBe(50);
    // As if the relay crashed after publishing and before marking the rows published.
    await prisma.$executeRaw`update messaging_outbox set published_at = null where source = ${SOURCE}`;
    expect(await relay.relayOnce()).toBe(50);
    expect(await relay.relayOnce()).toBe(0);

    await eventually(() => deliveries.length >= 100, { what: '100 deliveries' });
    await eventually(async () => (await applied()).total === 50 || undefined, { what: '50 applied events' });
    expect(await applied()).toEqual({ total: 50, distinct: 50 });
    const perId = new Map<string, number>();
    for (const id of deliveries) perId.set(id, (perId.get(id) ?? 0) + 1);
    expect(perId.size).toBe(50);
    expect([...perId.values()].every((n) => n === 2)).toBe(true);
  });

  it('applies each event once when the consumer restarts mid-stream and re-reads from the start', async () => {
    handlerDelayMs = 5;
    await enqueue(1000, 300);
    while ((await relay.relayOnce()) > 0);
    await eventually(async () => (await applied()).total >= 120 || undefined, { what: 'the stream to be under way' });
    await consumer!.close();
    const midStream = (await applied()).total;
    expect(midStream).toBeLessThan(350);

    // As if the consumer had crashed before committing anything: rewind its group to the beginning.
    const admin = createKafka(settings).admin();
    await admin.connect();
    await admin.resetOffsets({ groupId: `workline-test-${suffix}`, topic: PROBE_TOPIC, earliest: true });
    await admin.disconnect();

    const deliveredBefore = deliveries.length;
    handlerDelayMs = 0;
    consumer = await startConsumer();
    await eventually(async () => (await applied()).total === 350 || undefined, { what: 'all 350 events applied', timeoutMs: 60_000 });
    await eventually(() => deliveries.length - deliveredBefore >= 400, { what: 'the rewound stream to be re-read' });
    expect(await applied()).toEqual({ total: 350, distinct: 350 });
    const inbox = await prisma.inboxEntry.count({ where: { consumer: SOURCE } });
    expect(inbox).toBe(350);
  });

  const relayAll = async () => {
    while ((await relay.relayOnce()) > 0);
  };

  it("publishes events whose total exceeds the topic's max.message.bytes, all of them and in order", async () => {
    // One key: one partition, so a single produce would carry all ~300 KB in one record batch.
    const ids = await prisma.$transaction(async (tx) => {
      const written: string[] = [];
      for (let n = 0; n < 30; n++)
        written.push(await enqueueEvent(tx, SOURCE, LIMITED_TOPIC, { n, pad: 'm'.repeat(10_000) }, { key: 'one-workstream' }));
      return written;
    }, TEST_TRANSACTION);
    await relayAll();
    await eventually(() => ids.every((id) => limitedReceived.includes(id)) || undefined, { what: 'all 30 medium events' });
    expect(limitedReceived.filter((id) => ids.includes(id))).toEqual(ids);
    expect(await prisma.outboxEvent.count({ where: { id: { in: ids }, publishedAt: null } })).toBe(0);
  });

  it('publishes in the order the rows were written, whatever the number of digits in their seq', async () => {
    // The relay once sorted by the seq it reads as text ("10" before "9"). The sequence crosses 9 → 10 →
    // 100 … once in a database's life, so the rows take seqs of their own that put three lengths side by
    // side: negative ones, which the sequence never hands out.
    const seqs = [-10, -9, -1];
    await prisma.$executeRaw`delete from messaging_outbox where seq = any(${seqs}::bigint[])`;
    const ids = await prisma.$transaction(async (tx) => {
      const written: string[] = [];
      for (let n = 0; n < seqs.length; n++) written.push(await enqueueEvent(tx, SOURCE, LIMITED_TOPIC, { n }, { key: 'ordered' }));
      return written;
    }, TEST_TRANSACTION);
    for (const [index, id] of ids.entries()) await prisma.$executeRaw`update messaging_outbox set seq = ${seqs[index]} where id = ${id}`;
    await relayAll();
    await eventually(() => ids.every((id) => limitedReceived.includes(id)) || undefined, { what: 'the three ordered events' });
    expect(limitedReceived.filter((id) => ids.includes(id))).toEqual(ids);
  });

  it('dead-letters an event larger than its topic allows, with the reason, and publishes the events around it', async () => {
    const [before, oversized, after] = await prisma.$transaction(
      async (tx) => [
        await enqueueEvent(tx, SOURCE, LIMITED_TOPIC, { n: 1 }, { key: 'one-workstream' }),
        await enqueueEvent(tx, SOURCE, LIMITED_TOPIC, { n: 2, pad: 'o'.repeat(LIMITED_MAX_BYTES + 10_000) }, { key: 'one-workstream' }),
        await enqueueEvent(tx, SOURCE, LIMITED_TOPIC, { n: 3 }, { key: 'one-workstream' }),
      ],
      TEST_TRANSACTION,
    );
    await relayAll();
    await eventually(() => limitedReceived.includes(after) || undefined, { what: 'the event behind the oversized one' });
    expect(limitedReceived).toContain(before);
    expect(limitedReceived).not.toContain(oversized);
    const row = await prisma.outboxEvent.findUniqueOrThrow({ where: { id: oversized } });
    expect(row.publishedAt).toBeNull();
    expect(row.deadLetteredAt).toBeInstanceOf(Date);
    expect(row.deadLetterReason).toContain(`larger than ${LIMITED_TOPIC}'s max.message.bytes (${LIMITED_MAX_BYTES})`);
    // Dead-lettered rows are not taken again: the relay has nothing left.
    expect(await relay.relayOnce()).toBe(0);
  });

  it(
    "sends a batch row's events one message each, in order, with their own ids and the row's key and headers, " + 'counted as events',
    async () => {
      await relayAll();
      const data = Array.from({ length: 600 }, (_, n) => ({ n, text: 'tab\tnewline\nquote" backslash\\ é' }));
      const batchIds = await relayDb.transaction((sql) =>
        enqueueEventBatch(sql, SOURCE, LIMITED_TOPIC, data, { key: 'batched', headers: { 'x-upload': 'u-1' } }),
      );
      const singleId = await enqueueEvent(prisma, SOURCE, LIMITED_TOPIC, { n: 600 }, { key: 'batched' });
      expect(new Set(batchIds).size).toBe(600);
      // The backlog gauge counts events, not rows.
      const metrics = new AppMetrics();
      new OutboxRelay(relayDb, producer, { source: SOURCE, metrics });
      const backlog = async () => (await metrics.registry.getSingleMetric('outbox_backlog')!.get()).values[0]?.value;
      expect(await backlog()).toBe(601);
      // The batch row alone is over the 500 events a pass takes: it is taken whole, and the row behind it waits.
      expect(await relay.relayOnce()).toBe(600);
      expect(await relay.relayOnce()).toBe(1);
      expect(await backlog()).toBe(0);
      const all = [...batchIds, singleId];
      await eventually(() => all.every((id) => limitedReceived.includes(id)) || undefined, { what: 'the 601 events' });
      expect(limitedReceived.filter((id) => all.includes(id))).toEqual(all);
      const first = limitedMeta.get(batchIds[0])!;
      expect(first.key).toBe('batched');
      expect(first.headers).toMatchObject({ 'x-upload': 'u-1', 'event-id': batchIds[0], ce_id: batchIds[0], ce_type: LIMITED_TOPIC });
      expect(first.envelope).toEqual({ id: batchIds[0], type: LIMITED_TOPIC, occurred_at: first.headers.ce_time, data: data[0] });
      expect(limitedMeta.get(batchIds[599])!.envelope.data).toEqual(data[599]);
      // One row per event in the view, in the order sent.
      const listed = await prisma.$queryRaw<{ id: string; n: number; published: boolean }[]>`
      select id, (payload->'data'->>'n')::int as n, published_at is not null as published
      from messaging_outbox_events where source = ${SOURCE} and key = 'batched' order by seq, ord`;
      expect(listed.map((row) => row.id)).toEqual(all);
      expect(listed.map((row) => row.n)).toEqual([...Array(601).keys()]);
      expect(listed.every((row) => row.published)).toBe(true);
    },
  );

  it("compresses a batch row's events with lz4 where the server offers it (the stack sets it on the database), else pglz", async () => {
    const [{ offered }] = await prisma.$queryRaw<{ offered: boolean }[]>`
      select 'lz4' = any(enumvals) as offered from pg_settings where name = 'default_toast_compression'`;
    const data = Array.from({ length: 2_000 }, (_, n) => ({ n, worker_id: `worker-${n}@example.com`, review_score: 0.25 }));
    await relayDb.transaction((sql) => enqueueEventBatch(sql, SOURCE, LIMITED_TOPIC, data, { key: 'compressed' }));
    const [{ method }] = await prisma.$queryRaw<{ method: string | null }[]>`
      select pg_column_compression(events) as method from messaging_outbox where source = ${SOURCE} and key = 'compressed'`;
    expect(method).toBe(offered ? 'lz4' : 'pglz');
    await relayAll();
  });

  it('dead-letters an event of a batch row larger than its topic allows as a row of its own, and sends the others', async () => {
    await relayAll();
    const [before, oversized, after] = await relayDb.transaction((sql) =>
      enqueueEventBatch(sql, SOURCE, LIMITED_TOPIC, [{ n: 1 }, { n: 2, pad: 'o'.repeat(LIMITED_MAX_BYTES + 10_000) }, { n: 3 }], {
        key: 'batched-dead',
      }),
    );
    expect(await relay.relayOnce()).toBe(3);
    await eventually(() => limitedReceived.includes(after) || undefined, { what: 'the event behind the oversized one' });
    expect(limitedReceived).toContain(before);
    expect(limitedReceived).not.toContain(oversized);
    const row = await prisma.outboxEvent.findUniqueOrThrow({ where: { id: oversized } });
    expect(row).toMatchObject({ source: SOURCE, topic: LIMITED_TOPIC, key: 'batched-dead', publishedAt: null, events: null });
    expect(row.deadLetteredAt).toBeInstanceOf(Date);
    expect(row.deadLetterReason).toContain(`larger than ${LIMITED_TOPIC}'s max.message.bytes (${LIMITED_MAX_BYTES})`);
    expect((row.payload as { data: { n: number } }).data.n).toBe(2);
    expect(await relay.relayOnce()).toBe(0);
  });

  it(
    'cuts a batch into rows of at most BATCH_ROW_MAX_CHARS in one statement, a larger event alone, and dead-letters ' +
      'each event that cannot be sent',
    async () => {
      await relayAll();
      // About a third of a row each: three share a row; the large one is a row of its own and too big for the topic.
      const medium = (n: number) => ({ n, pad: String(n).repeat(Math.floor(BATCH_ROW_MAX_CHARS / 3) - 500) });
      const large = (n: number) => ({ n, pad: String(n).repeat(1_500_000) });
      const events = [medium(1), medium(2), medium(3), medium(4), large(5), medium(6)];
      const ids = await relayDb.transaction((sql) => enqueueEventBatch(sql, SOURCE, LIMITED_TOPIC, events, { key: 'huge' }));
      const rows = await prisma.$queryRaw<{ event_count: number; chars: number }[]>`
      select event_count, length(events) as chars from messaging_outbox
      where source = ${SOURCE} and key = 'huge' and events is not null order by seq`;
      expect(rows.map((row) => row.event_count)).toEqual([3, 1, 1, 1]);
      expect(rows.filter((row) => row.event_count > 1).every((row) => row.chars <= BATCH_ROW_MAX_CHARS)).toBe(true);
      expect(rows[2].chars).toBeGreaterThan(BATCH_ROW_MAX_CHARS);
      expect(await relay.relayOnce()).toBe(6);
      const sent = ids.filter((_, index) => index !== 4);
      await eventually(() => sent.every((id) => limitedReceived.includes(id)) || undefined, { what: 'the five medium events' });
      expect(limitedReceived.filter((id) => ids.includes(id))).toEqual(sent);
      const dead = await prisma.outboxEvent.findMany({ where: { id: { in: ids }, deadLetteredAt: { not: null } }, select: { id: true } });
      expect(dead.map((row) => row.id)).toEqual([ids[4]]);
    },
  );

  it('prunes the rows published longer ago than the retention, and keeps young, unpublished and dead-lettered ones', async () => {
    const pruning = new OutboxRelay(relayDb, producer, { source: SOURCE, retentionMs: 3_600_000 });
    const ids = await prisma.$transaction(
      async (tx) => Promise.all(['old', 'young', 'old-unpublished', 'old-dead'].map((n) => enqueueEvent(tx, SOURCE, PROBE_TOPIC, { n }))),
      TEST_TRANSACTION,
    );
    const [old, young, oldUnpublished, oldDead] = ids;
    await relayAll();
    const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
    await prisma.$executeRaw`update messaging_outbox set created_at = ${twoHoursAgo}, published_at = ${twoHoursAgo} where id = ${old}`;
    await prisma.$executeRaw`update messaging_outbox set created_at = ${twoHoursAgo}, published_at = null where id = ${oldUnpublished}`;
    await prisma.$executeRaw`update messaging_outbox set created_at = ${twoHoursAgo}, published_at = null,
      dead_lettered_at = ${twoHoursAgo}, dead_letter_reason = 'test' where id = ${oldDead}`;
    expect(await pruning.prunePublished()).toBe(1);
    const left = await prisma.outboxEvent.findMany({ where: { id: { in: ids } }, select: { id: true } });
    expect(left.map((row) => row.id).sort()).toEqual([young, oldUnpublished, oldDead].sort());
    // Without a retention nothing is pruned.
    await prisma.$executeRaw`update messaging_outbox set published_at = ${twoHoursAgo} where id = ${young}`;
    await prisma.$executeRaw`update messaging_outbox set created_at = ${twoHoursAgo} where id = ${young}`;
    expect(await relay.prunePublished()).toBe(0);
    expect(await pruning.prunePublished()).toBe(1);
  });

  it('prunes inbox rows once no topic can hand their event back, and keeps the younger ones', async () => {
    const consumerName = `${SOURCE}-pruning`;
    const justExpired = new Date(Date.now() - INBOX_RETENTION_MS - 60_000);
    const almostExpired = new Date(Date.now() - INBOX_RETENTION_MS + 3_600_000);
    await prisma.$executeRaw`insert into messaging_inbox (consumer, event_id, processed_at) values
      (${consumerName}, 'expired', ${justExpired}), (${consumerName}, 'kept', ${almostExpired}), (${consumerName}, 'fresh', now())`;
    // Longer than any topic keeps a message, so the row outlives every redelivery.
    expect(INBOX_RETENTION_MS).toBeGreaterThan(Math.max(...Object.values(TOPIC_SPECS).map((spec) => spec.retentionHours)) * 3_600_000);
    expect(await new InboxPruner(relayDb).pruneExpired()).toBeGreaterThanOrEqual(1);
    const left = await prisma.$queryRaw<{ event_id: string }[]>`select event_id from messaging_inbox where consumer = ${consumerName}`;
    expect(left.map((row) => row.event_id).sort()).toEqual(['fresh', 'kept']);
    // An expired event that comes back anyway is applied again: the row was the only guard, by design.
    const replay = await new Inbox(prisma).once(consumerName, 'expired', async () => 'applied');
    expect(replay).toEqual({ applied: true, result: 'applied' });
  });

  it('prunes on its own while it runs, between batches', async () => {
    const running = new OutboxRelay(relayDb, producer, { source: SOURCE, retentionMs: 3_600_000, pollMs: 50, pruneEveryMs: 100 });
    running.onApplicationBootstrap();
    try {
      const [old, young] = await prisma.$transaction(
        async (tx) => Promise.all(['old', 'young'].map((n) => enqueueEvent(tx, SOURCE, PROBE_TOPIC, { n }))),
        TEST_TRANSACTION,
      );
      await eventually(
        async () => (await prisma.outboxEvent.count({ where: { id: { in: [old, young] }, publishedAt: null } })) === 0 || undefined,
        {
          what: 'both rows published by the running relay',
        },
      );
      const twoHoursAgo = new Date(Date.now() - 2 * 3_600_000);
      await prisma.$executeRaw`update messaging_outbox set created_at = ${twoHoursAgo}, published_at = ${twoHoursAgo} where id = ${old}`;
      await eventually(async () => (await prisma.outboxEvent.count({ where: { id: old } })) === 0 || undefined, {
        what: 'the old row pruned',
      });
      expect(await prisma.outboxEvent.count({ where: { id: young } })).toBe(1);
    } finally {
      await running.beforeApplicationShutdown();
    }
  });

  it('hands a batch handler what queued while its last call ran, in one call; a bad message fails alone', async () => {
    let open!: () => void;
    batchGate = new Promise<void>((resolve) => (open = resolve));
    await producer.send(BATCH_TOPIC, [{ value: { id: 'first' } }]);
    await eventually(() => batchCalls.some((call) => call.ids.includes('first')) || undefined, { what: 'the first call' });
    // While that call runs, 20 more queue on the partition, one of them poison.
    const ids = Array.from({ length: 20 }, (_, n) => `queued-${n}`);
    await producer.send(
      BATCH_TOPIC,
      ids.map((id, n) => ({ value: { id, poison: n === 10 }, headers: { [REQUEST_ID_KAFKA_HEADER]: `request-${id}` } })),
    );
    open();
    const good = ids.filter((_, n) => n !== 10);
    await eventually(() => good.every((id) => batchHandled.includes(id)) || undefined, { what: 'the 19 good messages' });
    expect(batchHandled).toEqual(['first', ...good]);
    const drained = batchCalls.filter((call) => call.ids.length > 1);
    expect(drained.length).toBeGreaterThan(0);
    expect(drained[0].ids).toContain('queued-0');
    expect(drained[0].requestIds[0]).toBe('request-queued-0');
    // The poison message: in its batch's call, then alone for each of its 3 tries, then dead-lettered.
    expect(batchCalls.filter((call) => call.ids.length === 1 && call.ids[0] === 'queued-10').map((call) => call.attempt)).toEqual([
      1, 2, 3,
    ]);
  });

  it('dead-letters a message that always fails after bounded retries, without blocking its partition', async () => {
    const poisonId = `poison-${suffix}`;
    await producer.send(POISON_TOPIC, [
      { key: 'same', value: { id: 'before' } },
      { key: 'same', value: { id: poisonId, poison: true } },
      { key: 'same', value: { id: 'after' } },
    ]);
    await eventually(() => poisonTopicHandled.includes('after') || undefined, { what: 'the message behind the poison one' });
    expect(poisonTopicHandled).toEqual(['before', 'after']);
    expect(poisonTopicCalls.get(poisonId)).toBe(3);

    const dlq = createKafka(settings).consumer({ groupId: `test-dlq-${suffix}` });
    const found: Record<string, string>[] = [];
    await dlq.connect();
    await dlq.subscribe({ topics: [Topic.DeadLetter], fromBeginning: true });
    await dlq.run({
      eachMessage: async ({ message }) => {
        const headers = decodeHeaders(message.headers);
        if (headers['dlq-original-topic'] === POISON_TOPIC) found.push({ ...headers, value: message.value?.toString() ?? '' });
      },
    });
    try {
      await eventually(() => found.length > 0 || undefined, { what: 'the dead letter' });
    } finally {
      await dlq.disconnect();
    }
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      'dlq-original-partition': '0',
      'dlq-attempts': '3',
      'dlq-error': `message ${poisonId} can never be handled`,
      'dlq-consumer-group': `workline-test-${suffix}`,
    });
    expect(JSON.parse(found[0].value)).toEqual({ id: poisonId, poison: true });
  });

  it(
    'keeps trying a message whose handler cannot reach the database, ' + 'past maxAttempts, in order, instead of dead-lettering it',
    async () => {
      const waiting = `unreachable-${suffix}`;
      await producer.send(POISON_TOPIC, [
        { key: 'outage', value: { id: 'before-outage' } },
        // Twice maxAttempts (3): a failure of its own would have dead-lettered it after 3 tries.
        { key: 'outage', value: { id: waiting, unreachableTries: 6 } },
        { key: 'outage', value: { id: 'after-outage' } },
      ]);
      await eventually(() => poisonTopicHandled.includes('after-outage') || undefined, { what: 'the message behind the waiting one' });
      expect(poisonTopicHandled.slice(poisonTopicHandled.indexOf('before-outage'))).toEqual(['before-outage', waiting, 'after-outage']);
      expect(poisonTopicCalls.get(waiting)).toBe(7);
    },
  );
});

describe('Request-reply offsets (real Kafka)', () => {
  const stack = testStack();
  const settings: KafkaSettings = { brokers: stack.kafkaBrokers, app: `test-rpc-${suffix}`, instanceId: 'jest' };
  const callerSettings: KafkaSettings = { ...settings, app: `test-rpc-caller-${suffix}` };
  const producer = new KafkaProducer(callerSettings);
  const client = new KafkaRpcClient(callerSettings, producer, 20_000);
  const admin = createKafka(settings).admin();
  const groupId = `workline-test-rpc-${suffix}`;

  const startService = async (rpcCommitDelayMs?: number) => {
    const transport = new KafkaTransport({ settings, rpcTopic: RPC_TOPIC, rpcCommitDelayMs });
    const app = await NestFactory.createMicroservice(RpcProbeModule, { strategy: transport, logger: ['error'] });
    app.useGlobalFilters(new DomainErrorRpcFilter());
    await app.listen();
    await eventually(() => !transport.consumerProblem() || undefined, { what: 'the service in its group' });
    return app;
  };

  /** Offsets the group has committed on the RPC topic, summed over partitions, and the topic's end. */
  const offsets = async () => {
    const [committed] = await admin.fetchOffsets({ groupId, topics: [RPC_TOPIC] });
    const ends = await admin.fetchTopicOffsets(RPC_TOPIC);
    return {
      committed: committed.partitions.reduce((sum, { offset }) => sum + Math.max(0, Number(offset)), 0),
      end: ends.reduce((sum, { high }) => sum + Number(high), 0),
    };
  };

  const ask = async (from: number, count: number, pattern = RPC_PATTERN) => {
    for (let n = from; n < from + count; n++)
      expect(await client.requestOn(RPC_TOPIC, 'probe', pattern, `request-${n}`)).toBe(`request-${n}`);
  };

  beforeAll(async () => {
    await ensureTopics(settings, { [RPC_TOPIC]: { partitions: 3, retentionHours: 1 } });
    await admin.connect();
    await client.onModuleInit();
  });

  afterAll(async () => {
    await client.onApplicationShutdown();
    await producer.onApplicationShutdown();
    await admin.disconnect();
  });

  it(
    'commits the offsets of idempotent requests together, not per batch; ' + 'any other request at once; all before leaving the group',
    async () => {
      // A delay longer than the test: nothing but another request or the close commits.
      const service = await startService(600_000);
      await ask(0, 10);
      expect(await offsets()).toMatchObject({ committed: 0, end: 10 });
      // A request that must not run twice is committed as soon as it starts, with everything started before it.
      await ask(10, 1, UNSAFE_RPC_PATTERN);
      await eventually(async () => ((await offsets()).committed === 11 ? true : undefined), { what: 'the unsafe request committed' });
      await ask(11, 3);
      expect(await offsets()).toEqual({ committed: 11, end: 14 });
      await service.close();
      // Everything started is committed: the partitions' next owner starts none of them again.
      expect(await offsets()).toEqual({ committed: 14, end: 14 });

      const next = await startService();
      try {
        await ask(14, 5);
        // With the default delay, committed shortly after they started, without a close.
        await eventually(async () => ((await offsets()).committed === 19 ? true : undefined), { what: 'the five offsets committed' });
      } finally {
        await next.close();
      }
      expect(rpcAnswered).toEqual(Array.from({ length: 19 }, (_, n) => `request-${n}`));
    },
  );

  it('commits the requests it started when a new member joins, so the partitions it hands over start none of them again', async () => {
    const numbers = (from: number, count: number) => Array.from({ length: count }, (_, n) => `request-${from + n}`);
    const { end: from } = await offsets();
    const answeredBefore = rpcAnswered.length;
    const first = await startService(600_000);
    let second: INestMicroservice | undefined;
    try {
      await ask(from, 10);
      expect(await offsets()).toEqual({ committed: from, end: from + 10 });
      // The rebalance the second member causes is what commits them: neither the delay nor a close does.
      second = await startService(600_000);
      await eventually(async () => ((await offsets()).committed === from + 10 ? true : undefined), {
        what: 'the started requests committed at the rebalance',
        timeoutMs: 10_000,
      });
      await ask(from + 10, 6);
    } finally {
      await second?.close();
      await first.close();
    }
    expect(await offsets()).toEqual({ committed: from + 16, end: from + 16 });
    expect(rpcAnswered.slice(answeredBefore)).toEqual(numbers(from, 16));
  });
});

const STALL_TOPIC = `workline.test.stall-${suffix}.v1`;
const STALL_RPC_TOPIC = `workline.test.stall-rpc-${suffix}.v1`;
const stallReceived: string[] = [];

@Controller()
class StallProbe {
  @EventPattern(STALL_TOPIC)
  onStall(@Payload() value: { id: string }): void {
    stallReceived.push(value.id);
  }
}

@Module({ controllers: [StallProbe, RpcProbe] })
class StallProbeModule {}

describe('A consumer that hears nothing from Kafka (real Kafka, its connections through a TCP proxy)', () => {
  const stack = testStack();
  const [brokerHost, brokerPort] = stack.kafkaBrokers[0].split(':');
  const proxy = new TcpProxy('consumer → Kafka', { host: brokerHost, port: Number(brokerPort) });
  const settings: KafkaSettings = {
    brokers: stack.kafkaBrokers,
    app: `test-stall-${suffix}`,
    instanceId: 'jest',
    // The broker's least: a member that could not leave is out of the group soon after the path heals.
    sessionTimeoutMs: 6_000,
    // Every connection of the service's clients goes through the proxy, whatever broker address they ask for.
    socketFactory: ({ onConnect }) => {
      const socket = connect({ host: '127.0.0.1', port: proxy.port }, onConnect);
      socket.setKeepAlive(true, 60_000);
      return socket;
    },
  };
  const producer = new KafkaProducer({ brokers: stack.kafkaBrokers, app: `test-stall-producer-${suffix}`, instanceId: 'jest' });
  // A gateway's side: its reply consumer's connections go through the proxy too.
  const callerSettings: KafkaSettings = { ...settings, app: `test-stall-caller-${suffix}` };
  const callerProducer = new KafkaProducer(callerSettings);
  const client = new KafkaRpcClient(callerSettings, callerProducer, 5_000, 8_000);
  const ask = (data: string) => client.requestOn<string>(STALL_RPC_TOPIC, 'probe', RPC_PATTERN, data);
  const send = (id: string) => producer.send(STALL_TOPIC, [{ key: id, value: JSON.stringify({ id }) }]);

  beforeAll(async () => {
    await proxy.start();
    await ensureTopics(settings, {
      [STALL_TOPIC]: { partitions: 1, retentionHours: 1 },
      [STALL_RPC_TOPIC]: { partitions: 1, retentionHours: 1 },
    });
  });

  afterAll(async () => {
    await client.onApplicationShutdown();
    await callerProducer.onApplicationShutdown();
    await producer.onApplicationShutdown();
    await proxy.stop();
  });

  it(
    "replaces a service's and a gateway's consumer silent for consumerStallMs by ones on new connections, which " + 'consume what arrives',
    async () => {
      // Longer than the join of the new consumer takes (the old member's 6 s session), far shorter than kafkajs's own timeouts (30 s).
      const transport = new KafkaTransport({ settings, rpcTopic: STALL_RPC_TOPIC, consumerStallMs: 8_000 });
      const service = await NestFactory.createMicroservice(StallProbeModule, { strategy: transport, logger: ['error'] });
      await service.listen();
      try {
        await eventually(() => !transport.consumerProblem() || undefined, { what: 'the consumer in its group', timeoutMs: 30_000 });
        await client.onModuleInit();
        await send('before');
        await eventually(() => stallReceived.includes('before') || undefined, { what: 'the first message consumed' });
        expect(await ask('rpc-before')).toBe('rpc-before');
        const acceptedBefore = proxy.counts.accepted;

        // Silence, as on the path that once left a kafkajs consumer fetching for minutes without an answer.
        proxy.set({ kind: 'blackhole' });
        await send('during');
        await eventually(() => (transport.consumerReplacements >= 1 && client.consumerReplacements >= 1) || undefined, {
          what: 'the silent consumers replaced',
          timeoutMs: 30_000,
        });
        expect(transport.consumerProblem()).toBeDefined();
        proxy.pass();

        await eventually(() => stallReceived.includes('during') || undefined, {
          what: 'the message sent in the silence consumed',
          timeoutMs: 60_000,
        });
        await eventually(() => !transport.consumerProblem() || undefined, { what: 'the new consumer in its group', timeoutMs: 30_000 });
        await send('after');
        await eventually(() => stallReceived.includes('after') || undefined, { what: 'a message sent after consumed' });
        // The gateway's new reply consumer reads live replies (a request sent before it was ready may time out).
        await eventually(async () => ((await ask('rpc-after').catch(() => undefined)) === 'rpc-after' ? true : undefined), {
          what: 'a request answered through the new reply consumer',
          timeoutMs: 60_000,
        });
        expect(proxy.counts.accepted).toBeGreaterThan(acceptedBefore);
        // At least once, in order: the silence redelivered nothing that had been handled before it.
        expect(stallReceived.filter((id) => id === 'before')).toHaveLength(1);
        expect(stallReceived.indexOf('during')).toBeLessThan(stallReceived.indexOf('after'));
      } finally {
        proxy.pass();
        await service.close();
      }
    },
    180_000,
  );
});

describe('kafkajs clients: connections at rest, topic creation (real Kafka)', () => {
  const stack = testStack();

  it('an idle client does not spin its request queues, and sends as soon as asked', async () => {
    const settings: KafkaSettings = { brokers: stack.kafkaBrokers, app: `test-idle-${suffix}`, instanceId: 'jest' };
    await ensureTopics(settings, { [PROBE_TOPIC]: { partitions: 3, retentionHours: 1 } });
    const producer = createKafka(settings).producer();
    const original = RequestQueue.prototype.checkPendingRequests;
    let checks = 0;
    RequestQueue.prototype.checkPendingRequests = function (this: RequestQueueInternals) {
      checks++;
      return original.call(this);
    };
    try {
      await producer.connect();
      await producer.send({ topic: PROBE_TOPIC, messages: [{ value: 'warm' }] });
      checks = 0;
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      // kafkajs 2.2.4 as released checked every millisecond per connection: hundreds here.
      expect(checks).toBeLessThan(10);
      const [sent] = await producer.send({ topic: PROBE_TOPIC, messages: [{ value: 'after rest' }] });
      expect(sent.errorCode).toBe(0);
    } finally {
      RequestQueue.prototype.checkPendingRequests = original;
      await producer.disconnect();
    }
  });

  it('creates missing topics from many instances at once, and names each topic and reason when the broker refuses one', async () => {
    const settings: KafkaSettings = { brokers: stack.kafkaBrokers, app: `test-topics-${suffix}`, instanceId: 'jest' };
    const fresh = { [`workline.test.ensure-${suffix}.v1`]: { partitions: 2, retentionHours: 1 } };
    // Five apps starting together, as npm start starts them: one creates the topic, the others are told it exists.
    const created = await Promise.all(Array.from({ length: 5 }, () => ensureTopics(settings, fresh)));
    expect(created.flat().length).toBeGreaterThanOrEqual(1);
    expect(await ensureTopics(settings, fresh)).toEqual([]);
    const refused = `workline.test.refused-${suffix}.v1`;
    await expect(ensureTopics(settings, { [refused]: { partitions: 0, retentionHours: 1 } })).rejects.toThrow(
      `creating Kafka topics failed: ${refused}: INVALID_PARTITIONS`,
    );
  });
});
