import { ALL_SERVICES, consumerGroupOf } from '@workline/contracts';
import {
  apiClient,
  completeUnit,
  createPlatformAccount,
  createWorker,
  eventually,
  http,
  logLinesOf,
  LoopbackReceiver,
  metricSample,
  metricSum,
  newQualityWorkstream,
  newRun,
  nextUnit,
  ok,
  type PlatformAccount,
  platformClient,
  presignUpload,
  testStack,
  runsAloneOnStack,
} from '@workline/testing';
import { randomUUID } from 'node:crypto';

const text = async (url: string) => (await fetch(url)).text();

/**
 * Observability across the apps: a request id that travels from the gateway through Kafka into every
 * service's JSON log lines, and /metrics, /health/live and /health/ready on each service (docs/operations.md).
 */
describe('request ids in the logs of every app', () => {
  runsAloneOnStack('compares service metrics (units leased) and log lines before and after its own requests');
  const receiver = new LoopbackReceiver();
  let account: PlatformAccount;
  let worker: Record<string, string>;

  beforeAll(async () => {
    await receiver.start();
    account = await createPlatformAccount('Observability');
    worker = await createWorker();
  });

  afterAll(() => receiver.stop());

  it('echoes a well-formed X-Request-Id, and gives a request without one a fresh id', async () => {
    const mine = `obs-${randomUUID()}`;
    const anonymous = apiClient();
    const echoed = await anonymous.GET('/health/live', { headers: { 'x-request-id': mine } });
    expect(echoed.response.headers.get('x-request-id')).toBe(mine);
    const fresh = await anonymous.GET('/health/live', { headers: { 'x-request-id': 'not well formed!' } });
    expect(fresh.response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const refused = await anonymous.GET('/v4/runs/{id}', { params: { path: { id: 'x' } }, headers: { 'x-request-id': `${mine}-401` } });
    expect(refused.response.status).toBe(401);
    expect(refused.response.headers.get('x-request-id')).toBe(`${mine}-401`);
  });

  it('carries the id through Kafka into the service that did the work and into the dispatcher that delivered the callback', async () => {
    const createId = `obs-create-${randomUUID()}`;
    const created = await platformClient(account).POST('/v4/runs', {
      headers: { 'x-request-id': createId },
      body: { line_id: account.lineId, callback_url: receiver.url('/obs-run'), units: [{ identifier: 'only' }] },
    });
    expect(created.response.status).toBe(201);
    const unit = await eventually(() => nextUnit(worker, account.lineId), { what: 'the unit to be leasable' });
    const completeId = `obs-complete-${randomUUID()}`;
    const completed = await apiClient().POST('/workforce/v1/assignments/{id}/complete', {
      params: { path: { id: unit.assignment_id } },
      headers: { ...worker, 'x-request-id': completeId },
      body: { output: { label: 'x' } },
    });
    expect(completed.response.status).toBe(200);
    expect(completed.response.headers.get('x-request-id')).toBe(completeId);
    await eventually(() => receiver.on('/obs-run')[0], { what: 'the run callback' });

    const createLines = await eventually(
      () => {
        const lines = logLinesOf(createId);
        return lines.some((l) => l.app === 'gateway') && lines.some((l) => l.app === 'platform-runs') ? lines : undefined;
      },
      { what: `log lines of ${createId} from the gateway and platform-runs` },
    );
    expect(createLines.find((l) => l.app === 'gateway')).toMatchObject({
      level: 'info',
      msg: 'POST /v4/runs 201',
      status: 201,
      route: '/v4/runs',
      instance: expect.any(String),
      time: expect.any(String),
    });
    expect(createLines.find((l) => l.app === 'platform-runs')).toMatchObject({ level: 'info', kind: 'rpc', outcome: 'ok' });

    // The completion finished the run: platform-runs enqueued the callback in the outbox under the request's
    // id, the relay published it with the id in a header, and the dispatcher's attempt logged under it.
    const completeLines = await eventually(
      () => {
        const lines = logLinesOf(completeId);
        return lines.some((l) => l.app === 'webhook-dispatcher' && typeof l.delivery_id === 'string') ? lines : undefined;
      },
      { what: `the dispatcher's attempt logged under ${completeId}` },
    );
    expect(new Set(completeLines.map((l) => l.app))).toEqual(new Set(['gateway', 'platform-runs', 'webhook-dispatcher']));
    expect(completeLines.find((l) => l.app === 'webhook-dispatcher' && l.delivery_id)).toMatchObject({
      status_code: 200,
      event_type: 'run.processed',
    });
    // No line of either request carries a credential.
    const all = JSON.stringify([...createLines, ...completeLines]);
    expect(all).not.toContain(account.password);
    expect(all).not.toContain(worker.authorization.slice('Bearer '.length));
  });

  it('carries the id of a CSV upload (a presigned PUT whose body is streamed) into the performance service', async () => {
    const { ws, key } = await newQualityWorkstream('Observability CSV');
    const presigned = await ok(presignUpload({ id: ws, key }, { kind: 'quality' }), 201);
    const putId = `obs-csv-${randomUUID()}`;
    const csv =
      'use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score\nuc,td,obs-1,w-1,2024-05-01T12:00:00Z,0.9\n';
    // The presigned URL is used as handed out.
    const stored = await fetch(presigned.upload_url, {
      method: 'PUT',
      headers: { 'content-type': 'text/csv', 'x-request-id': putId },
      body: csv,
    });
    expect(stored.status).toBe(200);
    expect(stored.headers.get('x-request-id')).toBe(putId);
    // The RPC call made once the body is stored (performance.upload.received) runs under the PUT's id, as does the one before it.
    const lines = await eventually(
      () => {
        const found = logLinesOf(putId);
        return found.some((l) => l.app === 'gateway') && found.some((l) => l.pattern === 'performance.upload.received') ? found : undefined;
      },
      { what: `the gateway's and performance's log lines of ${putId}` },
    );
    expect(lines.find((l) => l.pattern === 'performance.upload.received')).toMatchObject({
      app: 'performance',
      kind: 'rpc',
      outcome: 'ok',
    });
    const putLine = lines.find((l) => l.app === 'gateway');
    expect(putLine).toMatchObject({ method: 'PUT', status: 200, path: new URL(presigned.upload_url).pathname });
    // The path without its query string: the URL's signature is the authorisation of the upload.
    expect(JSON.stringify(putLine)).not.toContain(new URL(presigned.upload_url).searchParams.get('signature')!);
  });
});

describe('/metrics and /health on every service', () => {
  // Each service's own ops server: outside the gateway's API (docs/openapi.json), so plain requests.
  const ops = () => testStack().opsUrls;

  it('answers liveness and readiness (Kafka consumer in its group, database reachable) on each service', async () => {
    for (const app of ALL_SERVICES) {
      const live = await http('GET', `${ops()[app]}/health/live`);
      expect(live.status).toBe(200);
      const ready = await http<{ status: string; components: Record<string, { status: string }> }>('GET', `${ops()[app]}/health/ready`);
      expect({ app, status: ready.status }).toEqual({ app, status: 200 });
      expect(ready.body.components).toEqual({ kafka: { status: 'up' }, database: { status: 'up' } });
    }
  });

  it('exposes handler durations, consumer lag and outbox backlog on each service, and they settle', async () => {
    // Some work for every service first.
    await newRun(await createPlatformAccount('Metrics'), [{ identifier: 'm' }]);
    for (const app of ALL_SERVICES) {
      const metrics = await text(`${ops()[app]}/metrics`);
      expect(metrics).toMatch(/^process_cpu_seconds_total /m);
      expect(metrics).toContain('# TYPE kafka_handler_duration_seconds histogram');
      expect(metrics).toContain('# TYPE kafka_consumer_lag gauge');
      expect(metrics).toMatch(
        new RegExp(`^kafka_consumer_lag\\{group="${consumerGroupOf(app)}",topic="[^"]+",partition="\\d+"\\} \\d+$`, 'm'),
      );
      expect(metric(metrics, 'outbox_backlog', { source: app })).toBeGreaterThanOrEqual(0);
    }
    const platform = await text(`${ops()['platform-runs']}/metrics`);
    expect(
      metric(platform, 'kafka_handler_duration_seconds_count', { kind: 'rpc', pattern: 'platform.run.create', outcome: 'ok' }),
    ).toBeGreaterThanOrEqual(1);
    // Once the stack is idle, every relay has caught up and every consumer group has consumed everything.
    for (const app of ALL_SERVICES) {
      await eventually(async () => metric(await text(`${ops()[app]}/metrics`), 'outbox_backlog', { source: app }) === 0, {
        what: `${app}'s outbox backlog to be 0`,
        timeoutMs: 60_000,
      });
      await eventually(async () => metricSum(await text(`${ops()[app]}/metrics`), 'kafka_consumer_lag') === 0, {
        what: `${app}'s consumer lag to be 0`,
        timeoutMs: 60_000,
        intervalMs: 500,
      });
    }
  });

  it('counts leased units and tasks, and deliveries by state', async () => {
    const account = await createPlatformAccount('Leases');
    const worker = await createWorker();
    await newRun(account, [{ identifier: 'l' }]);
    const before = metric(await text(`${ops()['platform-runs']}/metrics`), 'assignments_leased', { kind: 'unit' });
    const unit = await eventually(() => nextUnit(worker, account.lineId), { what: 'a unit to lease' });
    expect(metric(await text(`${ops()['platform-runs']}/metrics`), 'assignments_leased', { kind: 'unit' })).toBe(before + 1);
    expect((await completeUnit(worker, unit.assignment_id, { output: {} })).status).toBe(200);
    expect(metric(await text(`${ops()['platform-runs']}/metrics`), 'assignments_leased', { kind: 'unit' })).toBe(before);
    expect(metric(await text(`${ops().oversight}/metrics`), 'assignments_leased', { kind: 'task' })).toBeGreaterThanOrEqual(0);

    const dispatcher = await text(`${ops()['webhook-dispatcher']}/metrics`);
    // The callback of the previous describe block was delivered.
    expect(metric(dispatcher, 'webhook_deliveries', { state: 'delivered' })).toBeGreaterThanOrEqual(1);
    expect(metric(dispatcher, 'webhook_deliveries', { state: 'dead' })).toBeGreaterThanOrEqual(0);
    expect(metric(dispatcher, 'webhook_deliveries', { state: 'pending' })).toBeGreaterThanOrEqual(0);
  });
});

/** A sample that must exist. */
function metric(text: string, name: string, labels: Record<string, string>): number {
  const value = metricSample(text, name, labels);
  if (value === undefined)
    throw new Error(
      `no sample ${name}${JSON.stringify(labels)} in:\n${text
        .split('\n')
        .filter((l) => l.startsWith(name))
        .join('\n')}`,
    );
  return value;
}
