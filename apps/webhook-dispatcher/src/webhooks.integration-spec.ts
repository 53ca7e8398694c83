import 'reflect-metadata';
import { type DeliveryDeadEvent, type DeliveryDetailView, type EventEnvelope, Topic } from '@workline/contracts';
import { PrismaService } from '@workline/db';
import { createKafka, decodeHeaders } from '@workline/messaging';
import { verify } from '@workline/signature';
import {
  adminCreate,
  DeliveryRequester,
  type DeliveryRequestInput,
  eventually,
  http,
  LoopbackReceiver,
  replayRpcRequest,
  type ReceivedRequest,
  testStack,
} from '@workline/testing';
import { createHmac, randomUUID } from 'node:crypto';

/**
 * The webhook-dispatcher end to end: DeliveryRequested on Kafka → signed POSTs to a real loopback
 * receiver, retries (the test stack runs with WEBHOOK_RETRY_BASE_MS=300: waits of 0.3, 0.6, 1.2, 2.4 s),
 * dead letters. Several instances and crashes: dispatcher-instances.integration-spec.ts; connection reuse and
 * per-origin caps: dispatch-connections.integration-spec.ts.
 */
describe('webhook-dispatcher: signed, durable delivery with retries', () => {
  const stack = testStack();
  const suffix = randomUUID().slice(0, 8);
  const receiver = new LoopbackReceiver();
  const requester = new DeliveryRequester();
  const prisma = new PrismaService(stack.databaseUrl);
  let accountId: string;
  let workstreamId: string;
  let apiKey: string;

  const deadEvents: EventEnvelope<DeliveryDeadEvent>[] = [];
  const deadLetters: { headers: Record<string, string>; value: string }[] = [];
  const kafka = createKafka({ brokers: stack.kafkaBrokers, app: `test-webhooks-${suffix}`, instanceId: 'jest' });
  const watcher = kafka.consumer({ groupId: `test-webhooks-${suffix}` });

  beforeAll(async () => {
    await receiver.start();
    const account = await adminCreate<{ id: string }>('/accounts', { name: 'Webhook Receivers Inc' });
    accountId = account.id;
    workstreamId = (await adminCreate<{ id: string }>('/workstreams', { account_id: accountId, name: 'Hooks', use_cases: [] })).id;
    apiKey = (await adminCreate<{ key: string }>(`/workstreams/${workstreamId}/api-keys`, {})).key;
    await watcher.connect();
    await watcher.subscribe({ topics: [Topic.DeliveryDead, Topic.DeadLetter], fromBeginning: true });
    await watcher.run({
      eachMessage: async ({ topic, message }) => {
        const value = message.value?.toString() ?? '';
        if (topic === Topic.DeliveryDead) deadEvents.push(JSON.parse(value) as EventEnvelope<DeliveryDeadEvent>);
        else deadLetters.push({ headers: decodeHeaders(message.headers), value });
      },
    });
  });

  afterAll(async () => {
    await watcher.disconnect();
    await requester.close();
    await receiver.stop();
    await prisma.$disconnect();
  });

  /** A task event as oversight would send it, for the test's workstream, signed with its API key. */
  const taskEvent = (path: string, overrides: Partial<DeliveryRequestInput> = {}): DeliveryRequestInput => {
    const taskId = `task-${randomUUID()}`;
    const body = JSON.stringify({
      uuid: randomUUID(),
      event_type: 'task.result_available',
      timestamp: new Date().toISOString(),
      request_id: taskId,
      task_id: taskId,
      diagnostic: { workstream_id: workstreamId, configuration_id: 'cfg-1', tool_project_id: 'tp-1' },
      note: 'ünïcödé ✓ and  spacing kept',
    });
    return {
      owner: { account_id: accountId, workstream_id: workstreamId },
      subject: { task_id: taskId },
      event_type: 'task.result_available',
      url: receiver.url(path),
      body,
      signing: 'x-svc-signature',
      sealed_secret: requester.box.seal(apiKey),
      ...overrides,
    };
  };

  const getDelivery = async (id: string) => {
    const result = await http<DeliveryDetailView>('GET', `/v1/deliveries/${id}`, { headers: { 'x-api-key': apiKey } });
    if (result.status !== 200) throw new Error(`GET /v1/deliveries/${id} answered ${result.status}: ${result.text}`);
    return result.body;
  };

  const settled = (id: string, status: 'delivered' | 'dead', timeoutMs = 30_000) =>
    eventually(
      async () => {
        const delivery = await getDelivery(id);
        return delivery.status === status ? delivery : undefined;
      },
      { what: `delivery ${id} to be ${status}`, timeoutMs, intervalMs: 200 },
    );

  /** The receiver's side of the spec's verification, done twice: with libs/signature and by hand. */
  const expectSignedBy = (request: ReceivedRequest, secret: string) => {
    const header = String(request.headers['x-svc-signature']);
    expect(verify(header, request.rawBody, secret)).toMatchObject({ ok: true });
    const parts = Object.fromEntries(header.split(';').map((element) => element.split('=')));
    expect(Object.keys(parts).sort()).toEqual(['t', 'v1']);
    const expected = createHmac('sha256', secret)
      .update(`${parts.t}.${request.rawBody.toString('utf8')}`)
      .digest('hex');
    expect(parts.v1).toBe(expected);
    expect(verify(header, request.rawBody, 'another-secret')).toMatchObject({ ok: false, reason: 'mismatch' });
  };

  it('delivers the exact body, signed with the API key, with a stable delivery id, first time', async () => {
    const path = `/ok-${suffix}`;
    const event = await requester.request(taskEvent(path));
    const delivery = await settled(event.delivery_id, 'delivered');

    const [request] = receiver.on(path);
    expect(receiver.on(path)).toHaveLength(1);
    expect(request.method).toBe('POST');
    expect(request.rawBody.equals(Buffer.from(event.body, 'utf8'))).toBe(true);
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers['x-svc-delivery-id']).toBe(event.delivery_id);
    expect(request.headers.authorization).toBeUndefined();
    expectSignedBy(request, apiKey);

    expect(delivery).toMatchObject({
      id: event.delivery_id,
      status: 'delivered',
      event_type: 'task.result_available',
      task_id: event.subject.task_id,
      run_id: null,
      url: receiver.url(path),
      attempt_count: 1,
      next_attempt_at: null,
      last_status_code: 200,
      last_error: null,
      delivered_at: expect.any(String),
      dead_at: null,
    });
    expect(delivery.attempts).toEqual([
      {
        number: 1,
        attempted_at: expect.any(String),
        status_code: 200,
        duration_ms: expect.any(Number),
        error: null,
        response_excerpt: 'ok',
      },
    ]);
  });

  it('takes a delivery request in once, however often it arrives', async () => {
    const path = `/twice-${suffix}`;
    const event = await requester.request(taskEvent(path));
    await requester.request(event);
    await settled(event.delivery_id, 'delivered');
    const again = await requester.request(event);
    // A marker behind the duplicate on the same partition (same key) proves it was consumed before we count.
    const marker = { ...taskEvent(`/marker-${suffix}`), delivery_id: `dlv_${randomUUID()}` };
    await requester.publish(marker, event.delivery_id);
    await settled(marker.delivery_id, 'delivered');
    expect(again.delivery_id).toBe(event.delivery_id);
    expect(receiver.on(path)).toHaveLength(1);
    expect(await prisma.delivery.count({ where: { id: event.delivery_id } })).toBe(1);
  });

  it('retries after a 500 with the same delivery id, the same bytes and a fresh valid signature', async () => {
    const path = `/flaky-${suffix}`;
    receiver.respond(path, (_request, nth) => (nth === 1 ? { status: 500, body: 'boom' } : { status: 200, body: 'fine' }));
    const event = await requester.request(taskEvent(path));
    const delivery = await settled(event.delivery_id, 'delivered');

    const requests = receiver.on(path);
    expect(requests).toHaveLength(2);
    for (const request of requests) {
      expect(request.headers['x-svc-delivery-id']).toBe(event.delivery_id);
      expect(request.rawBody.equals(Buffer.from(event.body, 'utf8'))).toBe(true);
      expectSignedBy(request, apiKey);
    }
    expect(delivery.attempts.map((a) => [a.number, a.status_code, a.error, a.response_excerpt])).toEqual([
      [1, 500, 'HTTP 500', 'boom'],
      [2, 200, null, 'fine'],
    ]);
    expect(delivery.attempt_count).toBe(2);
  });

  it('counts a receiver that takes over 5 s as a failed attempt (timeout) and retries', async () => {
    const path = `/slow-${suffix}`;
    receiver.respond(path, (_request, nth) => (nth === 1 ? { status: 200, delayMs: 6_000 } : { status: 200, body: 'quick now' }));
    const event = await requester.request(taskEvent(path));
    const delivery = await settled(event.delivery_id, 'delivered', 40_000);

    expect(receiver.on(path)).toHaveLength(2);
    expect(delivery.attempts).toHaveLength(2);
    expect(delivery.attempts[0]).toMatchObject({ status_code: null, error: 'timed out after 5000 ms', response_excerpt: null });
    expect(delivery.attempts[0].duration_ms).toBeGreaterThanOrEqual(4_900);
    expect(delivery.attempts[1]).toMatchObject({ status_code: 200, error: null, response_excerpt: 'quick now' });
  });

  it('counts a redirect as a failure and does not follow it', async () => {
    const path = `/redirect-${suffix}`;
    const elsewhere = `/redirect-target-${suffix}`;
    receiver.respond(path, (_request, nth) =>
      nth === 1 ? { status: 301, headers: { location: receiver.url(elsewhere) } } : { status: 204 },
    );
    const event = await requester.request(taskEvent(path));
    const delivery = await settled(event.delivery_id, 'delivered');
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([301, 204]);
    expect(delivery.attempts[0].error).toBe('HTTP 301');
    expect(receiver.on(elsewhere)).toHaveLength(0);
  });

  it('waits as long as a 503 Retry-After asks when that is longer than its own wait', async () => {
    const path = `/busy-${suffix}`;
    receiver.respond(path, (_request, nth) =>
      nth === 1 ? { status: 503, headers: { 'retry-after': '2' }, body: 'busy' } : { status: 200 },
    );
    const event = await requester.request(taskEvent(path));
    await settled(event.delivery_id, 'delivered');
    const [first, second] = receiver.on(path);
    // Never earlier than asked (the stack's own first wait is only ~300 ms).
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1_900);
  });

  it('gives up after 4 retries with growing waits, marks the delivery dead and publishes DeliveryDead', async () => {
    const path = `/down-${suffix}`;
    receiver.respond(path, () => ({ status: 500, body: 'down for good' }));
    const event = await requester.request(taskEvent(path));
    const delivery = await settled(event.delivery_id, 'dead');

    const requests = receiver.on(path);
    expect(requests).toHaveLength(5);
    expect(new Set(requests.map((r) => r.headers['x-svc-delivery-id']))).toEqual(new Set([event.delivery_id]));
    // Waits of 0.3, 0.6, 1.2 and 2.4 s with up to +10 % jitter: never shorter than each, between the attempts
    // as the dispatcher started them (the receiver's own clock reads late whenever this process is busy).
    const started = delivery.attempts.map((a) => Date.parse(a.attempted_at));
    const gaps = started.slice(1).map((at, i) => at - started[i]);
    [300, 600, 1_200, 2_400].forEach((min, i) => expect(gaps[i]).toBeGreaterThanOrEqual(min));
    expect(delivery).toMatchObject({
      status: 'dead',
      attempt_count: 5,
      last_status_code: 500,
      last_error: 'HTTP 500',
      dead_at: expect.any(String),
      next_attempt_at: null,
    });
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 500, 500]);

    const dead = await eventually(() => deadEvents.find((e) => e.data.delivery_id === event.delivery_id), {
      what: 'the DeliveryDead event',
    });
    expect(dead.type).toBe(Topic.DeliveryDead);
    expect(dead.data).toEqual({
      delivery_id: event.delivery_id,
      owner: { account_id: accountId, workstream_id: workstreamId },
      subject: { task_id: event.subject.task_id },
      event_type: 'task.result_available',
      url: receiver.url(path),
      attempts: 5,
      last_error: 'HTTP 500',
    });

    // Redelivery of a dead delivery starts a fresh round; the receiver is back.
    receiver.respond(path, () => ({ status: 200, body: 'back' }));
    const redeliver = await http<{ id: string; status: string }>('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, {
      headers: { 'x-api-key': apiKey },
    });
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id: event.delivery_id, status: 'pending' });
    const revived = await settled(event.delivery_id, 'delivered');
    expect(receiver.on(path)).toHaveLength(6);
    expectSignedBy(receiver.on(path)[5], apiKey);
    expect(revived).toMatchObject({ attempt_count: 6, dead_at: null, last_status_code: 200, last_error: null });
    expect(revived.attempts.map((a) => a.number)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('redelivers a delivered event on request, with the same delivery id', async () => {
    const path = `/again-${suffix}`;
    const event = await requester.request(taskEvent(path));
    await settled(event.delivery_id, 'delivered');
    const redeliver = await http('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, { headers: { 'x-api-key': apiKey } });
    expect(redeliver.status).toBe(202);
    await eventually(() => receiver.on(path).length === 2, { what: 'the redelivery to arrive' });
    const delivery = await settled(event.delivery_id, 'delivered');
    expect(delivery.attempt_count).toBe(2);
    const [first, second] = receiver.on(path);
    expect(second.headers['x-svc-delivery-id']).toBe(first.headers['x-svc-delivery-id']);
    expect(second.rawBody.equals(first.rawBody)).toBe(true);
  });

  it('applies a redelivery asked for during an attempt after that attempt, never overlapping it', async () => {
    const path = `/inflight-${suffix}`;
    receiver.respond(path, (_r, nth) => (nth === 1 ? { status: 200, delayMs: 1_500 } : { status: 200 }));
    const event = await requester.request(taskEvent(path));
    await eventually(() => receiver.on(path).length === 1, { what: 'the first attempt to be under way' });
    const redeliver = await http('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, { headers: { 'x-api-key': apiKey } });
    expect(redeliver.status).toBe(202);
    expect(redeliver.body).toMatchObject({ id: event.delivery_id, status: 'pending' });
    await eventually(() => receiver.on(path).length === 2, { what: 'the redelivery' });
    const delivery = await settled(event.delivery_id, 'delivered');
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([200, 200]);
    const [first, second] = receiver.on(path);
    expect(second.receivedAt - first.receivedAt).toBeGreaterThanOrEqual(1_500);
  });

  it(
    'keeps the retry count of a pending delivery redelivered during a failing attempt ' + '(the redelivery only brings it forward)',
    async () => {
      const path = `/inflight-failing-${suffix}`;
      receiver.respond(path, (_r, nth) => (nth === 1 ? { status: 500, delayMs: 1_000 } : { status: 500 }));
      const event = await requester.request(taskEvent(path));
      await eventually(() => receiver.on(path).length === 1, { what: 'the first attempt to be under way' });
      const redeliver = await http('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, { headers: { 'x-api-key': apiKey } });
      expect(redeliver.status).toBe(202);
      const delivery = await settled(event.delivery_id, 'dead');
      // Attempt 2 is the redelivery, at once; its failure is the round's second, so 0.6 s (not the first wait again)
      // before attempt 3, and the round ends dead after five attempts, not six.
      expect(delivery.attempt_count).toBe(5);
      const started = delivery.attempts.map((a) => Date.parse(a.attempted_at));
      expect(started[2] - started[1]).toBeGreaterThanOrEqual(600);
    },
  );

  it('applies a redelivery request once when the same request is replayed (a crash before its offset was committed)', async () => {
    const path = `/replayed-${suffix}`;
    const event = await requester.request(taskEvent(path));
    await settled(event.delivery_id, 'delivered');
    const since = Date.now();
    const requestId = `replayed-redelivery-${randomUUID()}`;
    const redeliver = await http('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, {
      headers: { 'x-api-key': apiKey, 'x-request-id': requestId },
    });
    expect(redeliver.status).toBe(202);
    expect((await settled(event.delivery_id, 'delivered')).attempt_count).toBe(2);
    const replies = await replayRpcRequest(Topic.WebhookDispatcherRpc, requestId, since);
    const answer = { ok: true, data: expect.objectContaining({ id: event.delivery_id, status: 'pending' }) };
    expect(replies).toEqual([answer, answer]);
    // A new request (another correlation id) is a new round; the replay before it started none.
    const again = await http('POST', `/v1/deliveries/${event.delivery_id}/redeliver`, { headers: { 'x-api-key': apiKey } });
    expect(again.status).toBe(202);
    await eventually(() => receiver.on(path).length >= 3, { what: 'the second redelivery' });
    const delivery = await settled(event.delivery_id, 'delivered');
    expect(delivery.attempts.map((a) => a.status_code)).toEqual([200, 200, 200]);
    expect(receiver.on(path)).toHaveLength(3);
  });

  it('sends platform callbacks unsigned, with the Basic credentials of the URL, which never show', async () => {
    const path = `/platform-${suffix}`;
    const url = receiver.url(path).replace('http://', 'http://client:s3cr%40t@');
    const event = await requester.request({
      owner: { account_id: accountId },
      subject: { run_id: `run-${suffix}` },
      event_type: 'run.processed',
      url,
      body: JSON.stringify({ id: `run-${suffix}`, status: 'Processed' }),
      signing: 'none',
    });
    await eventually(() => receiver.on(path).length === 1, { what: 'the platform callback' });
    const [request] = receiver.on(path);
    expect(request.headers.authorization).toBe(`Basic ${Buffer.from('client:s3cr@t').toString('base64')}`);
    expect(request.headers['x-svc-signature']).toBeUndefined();
    expect(request.headers['x-svc-delivery-id']).toBe(event.delivery_id);
    const row = await prisma.delivery.findUniqueOrThrow({ where: { id: event.delivery_id } });
    expect(row.url).toBe(receiver.url(path));
    expect(JSON.stringify(row)).not.toContain('s3cr');
  });

  it('sends an invalid delivery request to the dead-letter topic with the reason', async () => {
    const bad = `bad-${suffix}`;
    await requester.publish({ delivery_id: bad, url: 'not a url', signing: 'sometimes' }, bad);
    const letter = await eventually(
      () => deadLetters.find((l) => l.headers['dlq-original-topic'] === Topic.DeliveryRequested && l.value.includes(bad)),
      { what: 'the dead letter' },
    );
    expect(letter.headers['dlq-error']).toMatch(/^VALIDATION: Invalid request: /);
    for (const field of ['owner', 'subject', 'event_type', 'url', 'body', 'signing']) expect(letter.headers['dlq-error']).toContain(field);
    expect(await prisma.delivery.count({ where: { id: bad } })).toBe(0);
  });
});
