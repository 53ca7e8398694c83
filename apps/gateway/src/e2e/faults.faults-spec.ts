import 'reflect-metadata';
import { type EventEnvelope, type QualityReviewForQcEvent, Topic } from '@workline/contracts';
import { verify } from '@workline/signature';
import {
  adminCreate,
  createPlatformAccount,
  createWorker,
  dbQuery,
  eventually,
  FLEET_APPS,
  Fleet,
  faultPorts,
  flushRedis,
  http,
  type HttpResult,
  kafkaOutage,
  killKafka,
  killRedis,
  LoopbackReceiver,
  type PlatformAccount,
  postgresOutage,
  readWholeTopic,
  startRedis,
  withRetries,
} from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

/**
 * "Nothing accepted is lost" under faults (docs/operations.md, "Fault tests"). While three streams are in
 * flight (quality submissions, a 2,000-unit run worked by bot workers with a callback, oversight tasks with
 * webhooks), every app is SIGKILLed and restarted in turn (with two instances, also both of one app at once),
 * one is killed again while it starts, Kafka is away longer than an RPC's timeout and then SIGKILLed,
 * PostgreSQL is away as long (immediate stop), the broker and an app are killed at once, Redis is killed
 * (the streams must move without it: limits fail open), started again empty, and flushed. Clients retry like real ones. Then every answer the clients got
 * as 2xx is checked, field by field, against the database, the receivers and the QC topic. The same
 * scenario runs with one and with two instances of every app (two gateways, clients spreading requests
 * over both). Each run writes its fault table to .cache/faults/report-<instances>.md.
 */

const RUN_UNITS = 2000;
/** Units the bots leave for after the last fault, so the run is still in flight during every fault. */
const RUN_RESERVE = 150;
const UNIT_BOTS = 12;
const TASK_BOTS = 2;
/** Clients give up on one request after this long (a real client's patience; recovery takes seconds). */
const PATIENCE_MS = 180_000;
/** Kafka and PostgreSQL outages last longer than a request waits for its RPC (RPC_TIMEOUT_MS, 10 s). */
const OUTAGE_MS = 12_000;
/** How long Redis stays down at least: far longer than any request waits for it (libs/redis round trips). */
const REDIS_OUTAGE_MS = 10_000;
/** Quality records scoring under this go to QC (the workstream default, docs/performance-api.md). */
const QC_SCORE_THRESHOLD = 0.5;
const REPORT_DIR = join(__dirname, '..', '..', '..', '..', '.cache', 'faults');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Counts {
  [label: string]: number | string;
}

describe.each([
  { variant: 'one instance of every app', instances: 1 },
  { variant: 'two instances of every app', instances: 2 },
])('faults with $variant', ({ instances }) => {
  const receiver = new LoopbackReceiver();
  let fleet: Fleet;
  let gatewayTurn = 0;
  /** The gateway for the next request: clients spread their requests (and their retries) over every gateway. */
  const gw = () => fleet.gatewayUrls[gatewayTurn++ % fleet.gatewayUrls.length];

  beforeAll(async () => {
    await receiver.start();
    fleet = await Fleet.start(instances, faultPorts().gateways);
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
    await receiver.stop();
  });

  it('every record answered 2xx is persisted once, the run is Processed, every callback and webhook arrives', async () => {
    const tag = `f${instances}-${randomBytes(3).toString('hex')}`;
    const runPath = `/run-${tag}`;
    const taskPath = `/tasks-${tag}`;

    // Tenants, through the admin API.
    const qualityAccount = await adminCreate<{ id: string }>('/accounts', { name: `Faults quality ${tag}` });
    const qualityWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: qualityAccount.id,
      name: 'Faults',
      use_cases: [{ id: 'uc-f', task_definition_ids: ['td-f'] }],
      qc_sample_rate: 0,
    });
    const qualityKey = (await adminCreate<{ key: string }>(`/workstreams/${qualityWs.id}/api-keys`, {})).key;
    const platform: PlatformAccount = await createPlatformAccount(`Faults ${tag}`);
    const oversightAccount = await adminCreate<{ id: string }>('/accounts', { name: `Faults oversight ${tag}` });
    const oversightWs = await adminCreate<{ id: string }>('/workstreams', { account_id: oversightAccount.id, name: 'Faults', use_cases: [] });
    const oversightKey = (await adminCreate<{ key: string }>(`/workstreams/${oversightWs.id}/api-keys`, {})).key;
    const configuration = await adminCreate<{ id: string }>(`/workstreams/${oversightWs.id}/configurations`, { name: 'Faults', extended_events: true, tool_project_id: 'tp-faults' });
    const unitWorkers = await Promise.all(Array.from({ length: UNIT_BOTS }, () => createWorker()));
    const taskWorkers = await Promise.all(Array.from({ length: TASK_BOTS }, () => createWorker()));

    // The run exists before the faults start (POST /v4/runs has no idempotency key, so it is created once).
    const created = await http<{ id: string }>('POST', `${gw()}/v4/runs`, {
      headers: platform.auth,
      body: { line_id: platform.lineId, callback_url: receiver.url(runPath), units: Array.from({ length: RUN_UNITS }, (_, i) => ({ identifier: `u${i}` })) },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id;

    const state = { faultsDone: false, runProcessed: false, tasksDone: false };
    const problems: string[] = [];
    const patience = () => Date.now() + PATIENCE_MS;
    /** Completes or flags a leased unit or task through the work API, retrying like a client. */
    const closeAssignment = (worker: Record<string, string>, assignment: string, flag: boolean, body: object) =>
      withRetries(
        () => http('POST', `${gw()}/workforce/v1/assignments/${assignment}/${flag ? 'flag' : 'complete'}`, { headers: worker, body, timeoutMs: 30_000 }),
        patience(),
      );
    /** Leases the next unit or task; undefined (after a pause when there is nothing to do) when none was leased. */
    const nextAssignment = async <T>(worker: Record<string, string>, body: object, counter: { leasesLost: number }): Promise<T | undefined> => {
      const next = await withRetries(() => http<T>('POST', `${gw()}/workforce/v1/assignments/next`, { headers: worker, body, timeoutMs: 30_000 }), patience());
      // A `next` whose answer was lost leaves a lease nobody knows: it ends after UNIT/TASK_LEASE_SECONDS.
      if (next.attempts > 1) counter.leasesLost++;
      if (next.result?.status === 200) return next.result.body;
      if (next.result?.status === 204) await pause(500);
      else unexpected(`next ${JSON.stringify(body)}`, next.result);
      return undefined;
    };
    const unexpected = (what: string, result?: HttpResult) => problems.push(`${what}: ${result ? `${result.status} ${result.text.slice(0, 200)}` : 'gave up after retrying'}`);

    // (a) Quality submissions, each with a unique_id (the API's idempotency: a retry replaces, never adds).
    const quality = { sent: 0, accepted: new Set<string>(), retried: 0, bodies: new Map<string, Record<string, string | number>>(), retriedIds: new Set<string>() };
    const qualityStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        const uniqueId = `${tag}-q${i}`;
        quality.sent++;
        const body = {
          workstream_id: qualityWs.id,
          use_case_id: 'uc-f',
          task_definition_id: 'td-f',
          unique_id: uniqueId,
          task_id: uniqueId,
          worker_id: `bot${i % 7}@example.com`,
          review_completed_at: new Date(Date.UTC(2026, 10, 1, 12, 0, i % 3600, i % 1000)).toISOString(),
          review_score: (i % 10) / 10,
          review_explanation: `fault run ${tag}, record ${i}`,
        };
        quality.bodies.set(uniqueId, body);
        const { result, attempts } = await withRetries(
          () => http('POST', `${gw()}/v1/workstreams/${qualityWs.id}/task_reviewed`, { headers: { 'x-api-key': qualityKey }, body, timeoutMs: 30_000 }),
          patience(),
        );
        quality.retried += attempts > 1 ? 1 : 0;
        if (attempts > 1) quality.retriedIds.add(uniqueId);
        if (result?.status === 202) quality.accepted.add(uniqueId);
        else unexpected(`task_reviewed ${uniqueId}`, result);
        await pause(100);
      }
    })();

    // (b) Bot workers on the run: next, then complete (or flag every tenth unit), retrying like a client.
    const units = { outcome: new Map<string, 'Completed' | 'Flagged'>(), leasesLost: 0, retried: 0 };
    const unitOutput = (identifier: string) => ({ label: `done-${identifier}`, score: Number(identifier.slice(1)) / RUN_UNITS });
    const UNIT_FLAG_REASON = 'bot flags every tenth unit';
    const unitBot = async (worker: Record<string, string>) => {
      while (!state.runProcessed) {
        if (!state.faultsDone && units.outcome.size >= RUN_UNITS - RUN_RESERVE) {
          await pause(250);
          continue;
        }
        const leased = await nextAssignment<{ assignment_id: string; input: { identifier: string } }>(worker, { kind: 'unit', line_id: platform.lineId }, units);
        if (!leased) continue;
        const { assignment_id: assignment, input } = leased;
        const flag = Number(input.identifier.slice(1)) % 10 === 0;
        const done = await closeAssignment(worker, assignment, flag, flag ? { reason: UNIT_FLAG_REASON } : { output: unitOutput(input.identifier) });
        units.retried += done.attempts > 1 ? 1 : 0;
        const answer = done.result;
        // 200, or 409 "already completed/flagged": an earlier attempt whose answer was lost went through.
        if (answer?.status === 200 || (answer?.status === 409 && /already (completed|flagged)/.test(answer.text))) {
          units.outcome.set(input.identifier, flag ? 'Flagged' : 'Completed');
        } else if (!(answer?.status === 409 && /lease expired/.test(answer.text))) {
          unexpected(`${flag ? 'flag' : 'complete'} ${input.identifier}`, answer);
        }
      }
    };
    const unitBots = unitWorkers.map(unitBot);
    const runWatch = (async () => {
      while (!state.runProcessed) {
        await pause(1000);
        const rows = await dbQuery<{ status: string }>('select status from platform_run where id = $1', [runId]).catch(() => []);
        state.runProcessed = rows[0]?.status === 'Processed';
      }
    })();

    // (c) Oversight tasks: upload grant, PUT of the bytes, task with a callback_url, retrying each step.
    const tasks = { sent: 0, accepted: new Set<string>(), outcome: new Map<string, 'COMPLETED' | 'ERROR'>(), retried: 0, leasesLost: 0 };
    const taskResult = (taskId: string, bot: number) => ({ updated_tags: [{ value: `ok-${taskId.slice(-4)}`, confidence_score: 0.9 }], metadata: [{ key: 'bot', value: String(bot) }] });
    /** What the bot that closed each task sent (a task is COMPLETED with exactly these tags and metadata). */
    const taskResults = new Map<string, ReturnType<typeof taskResult>>();
    const taskStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        tasks.sent++;
        const grant = await withRetries(
          () => http<{ media_upload_url: string; media_key: string }>('POST', `${gw()}/v1/signed-url`, { headers: { 'x-api-key': oversightKey }, body: { configuration_id: configuration.id }, timeoutMs: 30_000 }),
          patience(),
        );
        if (grant.result?.status !== 200) {
          unexpected('signed-url', grant.result);
          continue;
        }
        // The signature covers the path and expiry, not the host: the PUT may go to any gateway.
        const uploadPath = new URL(grant.result.body.media_upload_url);
        const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(32)]);
        const upload = await withRetries(async () => {
          const response = await fetch(`${gw()}${uploadPath.pathname}${uploadPath.search}`, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: png, signal: AbortSignal.timeout(30_000) });
          return { status: response.status, headers: response.headers, body: undefined, text: await response.text() };
        }, patience());
        if (upload.result?.status !== 200) {
          unexpected('media upload', upload.result);
          continue;
        }
        // One Idempotency-Key per task, the same on every retry: a retry after a lost 201 gets the same task.
        const idempotencyKey = `fault-task-${i}-${randomBytes(8).toString('hex')}`;
        const task = await withRetries(
          () =>
            http<{ task_id: string }>('POST', `${gw()}/v1/tasks`, {
              headers: { 'x-api-key': oversightKey, 'idempotency-key': idempotencyKey },
              body: { media_key: grant.result!.body.media_key, configuration_id: configuration.id, callback_url: receiver.url(taskPath) },
              timeoutMs: 30_000,
            }),
          patience(),
        );
        tasks.retried += grant.attempts + upload.attempts + task.attempts > 3 ? 1 : 0;
        if (task.result?.status === 201) tasks.accepted.add(task.result.body.task_id);
        else unexpected('create task', task.result);
        await pause(300);
      }
    })();
    const taskBot = async (worker: Record<string, string>, b: number) => {
      for (let n = 0; !state.tasksDone; n++) {
        const leased = await nextAssignment<{ assignment_id: string; task_id: string }>(worker, { kind: 'task' }, tasks);
        if (!leased) continue;
        const { assignment_id: assignment, task_id: taskId } = leased;
        const flag = (n + b) % 4 === 0;
        const done = await closeAssignment(
          worker,
          assignment,
          flag,
          flag ? { reason: 'bot flags every fourth task' } : taskResult(taskId, b),
        );
        const answer = done.result;
        if (answer?.status === 200 || (answer?.status === 409 && /already closed/.test(answer.text))) {
          tasks.outcome.set(taskId, flag ? 'ERROR' : 'COMPLETED');
          if (!flag) taskResults.set(taskId, taskResult(taskId, b));
        } else if (answer?.status !== 404) {
          // 404: the lease ran out while the bot waited for an answer and another bot holds the task now.
          unexpected(`${flag ? 'flag' : 'complete'} task ${taskId}`, answer);
        }
      }
    };
    const taskBots = taskWorkers.map(taskBot);

    // The faults, one after the other, each once every stream has made progress since the previous one
    // (which also proves the system recovered from it).
    const progressMark = () => ({ q: quality.accepted.size, u: units.outcome.size, t: tasks.accepted.size });
    const progressed = async (what: string) => {
      const before = progressMark();
      await eventually(
        () => {
          const now = progressMark();
          const unitsHeld = units.outcome.size >= RUN_UNITS - RUN_RESERVE;
          return now.q > before.q && now.t > before.t && (now.u > before.u || unitsHeld);
        },
        { what: `every stream to make progress after ${what}`, timeoutMs: 240_000, intervalMs: 250 },
      );
    };
    const faultLog: [string, string][] = [];
    const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
    const inject = async (name: string, fault: () => Promise<void> | void) => {
      const started = Date.now();
      await fault();
      const ready = seconds(started);
      await progressed(name);
      faultLog.push([name, `${ready} to ready, ${seconds(started)} until every stream moved again`]);
    };
    const scenarioStarted = Date.now();
    await progressed('start-up');
    for (const [n, app] of FLEET_APPS.entries()) {
      const index = n % instances;
      await inject(`SIGKILL ${app}${instances > 1 ? ` #${index}` : ''}, restart`, () => fleet.crash(app, index));
    }
    if (instances > 1) await inject('SIGKILL both instances of performance at once, restart', () => fleet.crashAll('performance'));
    await inject('SIGKILL platform-runs again during its start-up', () => fleet.crashDuringStartup('platform-runs', 0, 1500));
    await inject(`Kafka away ${OUTAGE_MS / 1000} s (clean stop), restart`, async () => {
      await kafkaOutage(OUTAGE_MS);
      await fleet.ready();
    });
    await inject('SIGKILL Kafka broker, restart', async () => {
      await killKafka();
      await fleet.ready();
    });
    await inject(`PostgreSQL away ${OUTAGE_MS / 1000} s (immediate stop), restart`, async () => {
      await postgresOutage(OUTAGE_MS);
      await fleet.ready();
    });
    await inject('SIGKILL Kafka broker and oversight at once, restart both', async () => {
      await Promise.all([killKafka(), fleet.crash('oversight', 0)]);
      await fleet.ready();
    });
    // The streams must move while Redis is gone: rate limits, quotas and the failed-auth check fail open
    // (docs/decisions.md), and authentication never depends on it.
    const redisDown = Date.now();
    await inject('SIGKILL Redis (streams move without it)', killRedis);
    await inject('Redis back, empty', async () => {
      await pause(Math.max(0, REDIS_OUTAGE_MS - (Date.now() - redisDown)));
      await startRedis();
      await fleet.ready();
    });
    await inject('flush Redis', flushRedis);
    state.faultsDone = true;
    const recoveryStarted = Date.now();

    // Recovery: the streams stop, the bots finish the run and every task, the receivers get everything.
    await Promise.all([qualityStream, taskStream]);
    await Promise.all([...unitBots, runWatch]);
    const finalTask = `state in ('COMPLETED', 'ERROR')`;
    await eventually(
      async () => {
        const [open] = await dbQuery<{ n: number }>(`select count(*)::int as n from oversight_task where workstream_id = $1 and not ${finalTask}`, [oversightWs.id]);
        return open.n === 0;
      },
      { what: 'every oversight task to be final', timeoutMs: 180_000, intervalMs: 1000 },
    );
    state.tasksDone = true;
    await Promise.all(taskBots);
    faultLog.push(['(all faults injected, then: run Processed, tasks final)', seconds(recoveryStarted)]);

    // (a) Every accepted quality record is stored exactly once.
    const qualityRows = await dbQuery<{ unique_id: string; n: number }>(
      'select unique_id, count(*)::int as n from performance_quality_record where workstream_id = $1 group by unique_id',
      [qualityWs.id],
    );
    const stored = new Map(qualityRows.map((r) => [r.unique_id, r.n]));
    expect([...quality.accepted].filter((id) => stored.get(id) !== 1)).toEqual([]);
    expect(qualityRows.filter((r) => r.n !== 1)).toEqual([]);
    // ... holding what was sent, field by field (a retry of a unique_id replaces it with the same values).
    const qualityValues = await dbQuery<Record<string, string | number | Date>>(
      `select id, unique_id, use_case_id, task_definition_id, task_id, worker_id, review_completed_at, review_score, review_explanation
         from performance_quality_record where workstream_id = $1`,
      [qualityWs.id],
    );
    const qualityMismatches = qualityValues.flatMap((row) => {
      const sent = quality.bodies.get(String(row.unique_id));
      const asStored: Record<string, unknown> = { ...row, review_completed_at: (row.review_completed_at as Date).toISOString() };
      const differing = sent ? Object.keys(sent).filter((field) => field !== 'workstream_id' && asStored[field] !== sent[field]) : ['(never sent)'];
      return differing.length ? [{ unique_id: row.unique_id, differing }] : [];
    });
    expect(qualityMismatches).toEqual([]);

    // Every stored record under the QC threshold went to the QC topic as stored exactly once (one event
    // id), with the stored values; nothing else did (the workstream samples none). A retried submission
    // whose first attempt went through replaced the record (replace_duplicate defaults to true): that is a
    // new event with outcome "replaced". So is a request Kafka redelivered after a crash (RPC offsets are
    // committed once a request starts, docs/decisions.md): the same values again, one more "replaced" event.
    // Read once the performance outbox has published everything it holds (the relay may still be catching up).
    await eventually(
      async () =>
        (await dbQuery<{ n: number }>("select count(*)::int as n from messaging_outbox where source = 'performance' and published_at is null and dead_lettered_at is null"))[0].n === 0,
      { what: "the performance outbox to be published", timeoutMs: 60_000, intervalMs: 500 },
    );
    const qcMessages = (await readWholeTopic<EventEnvelope<QualityReviewForQcEvent>>(Topic.QualityReviewForQc)).filter(
      (m) => m.value.data.workstream_id === qualityWs.id,
    );
    const qcEventIds = new Map<string, Set<string>>();
    const storedEventIds = new Map<string, Set<string>>();
    for (const { value } of qcMessages) {
      qcEventIds.set(value.data.record_id, (qcEventIds.get(value.data.record_id) ?? new Set()).add(value.id));
      if (value.data.outcome === 'stored') storedEventIds.set(value.data.record_id, (storedEventIds.get(value.data.record_id) ?? new Set()).add(value.id));
    }
    const byRecordId = new Map(qualityValues.map((row) => [String(row.id), row]));
    const shouldQc = qualityValues.filter((row) => Number(row.review_score) < QC_SCORE_THRESHOLD).map((row) => String(row.id));
    expect(shouldQc.filter((id) => storedEventIds.get(id)?.size !== 1).map((id) => ({ id, unique_id: byRecordId.get(id)?.unique_id, stored: storedEventIds.get(id)?.size ?? 0 }))).toEqual([]);
    const replacedWithoutRetry = shouldQc.filter((id) => qcEventIds.get(id)!.size > 1 && !quality.retriedIds.has(String(byRecordId.get(id)?.unique_id)));
    expect([...qcEventIds.keys()].filter((id) => !shouldQc.includes(id))).toEqual([]);
    const qcMismatches = qcMessages.filter(({ value: { data } }) => {
      const row = byRecordId.get(data.record_id);
      return (
        !row ||
        data.reason !== 'below_threshold' ||
        (data.outcome !== 'stored' && data.outcome !== 'replaced') ||
        data.record.unique_id !== row.unique_id ||
        data.record.worker_id !== row.worker_id ||
        data.record.review_score !== row.review_score ||
        data.record.review_explanation !== row.review_explanation ||
        new Date(data.record.review_completed_at).getTime() !== (row.review_completed_at as Date).getTime()
      );
    });
    expect(qcMismatches.map((m) => m.value.data.record_id)).toEqual([]);

    // (b) The run is Processed with every unit final, as the bots were told.
    const [run] = await dbQuery<{ status: string; processed_at: Date | null; pending_units: number }>('select status, processed_at, pending_units from platform_run where id = $1', [runId]);
    expect(run).toMatchObject({ status: 'Processed', processed_at: expect.any(Date), pending_units: 0 });
    const unitRows = await dbQuery<{ identifier: string; status: string; output: unknown; flag_reason: string | null }>(
      "select input->>'identifier' as identifier, status, output, flag_reason from platform_unit where run_id = $1",
      [runId],
    );
    expect(unitRows).toHaveLength(RUN_UNITS);
    expect(unitRows.filter((u) => u.status !== 'Completed' && u.status !== 'Flagged')).toEqual([]);
    expect(unitRows.filter((u) => units.outcome.has(u.identifier) && units.outcome.get(u.identifier) !== u.status)).toEqual([]);
    expect(units.outcome.size).toBe(RUN_UNITS);
    // Each unit holds what its worker sent: the output of a completion, the reason of a flag.
    const unitMismatches = unitRows.filter((u) =>
      u.status === 'Completed'
        ? !isDeepStrictEqual(u.output, unitOutput(u.identifier)) || u.flag_reason !== null
        : u.flag_reason !== UNIT_FLAG_REASON,
    );
    expect(unitMismatches).toEqual([]);
    const polled = await http<{ status: string; units: unknown[] }>('GET', `${gw()}/v4/runs/${runId}`, { headers: platform.auth });
    expect(polled.body.status).toBe('Processed');

    // The run callback: one delivery (repeats of the same X-SVC-Delivery-Id are the documented crash window).
    const runCallbacks = await eventually(() => (receiver.on(runPath).length ? receiver.on(runPath) : undefined), { what: 'the run callback', timeoutMs: 120_000 });
    const runDeliveryIds = new Set(runCallbacks.map((r) => String(r.headers['x-svc-delivery-id'])));
    expect(runDeliveryIds.size).toBe(1);
    const callbackBody = JSON.parse(runCallbacks[0].rawBody.toString('utf8')) as { id: string; status: string; units: unknown[] };
    expect(callbackBody).toMatchObject({ id: runId, status: 'Processed' });
    expect(callbackBody.units).toHaveLength(RUN_UNITS);
    // The callback is the run as the API shows it, and byte for byte the body the dispatcher stored.
    expect(callbackBody).toEqual(polled.body);
    const deliveredBodies = new Map(
      (await dbQuery<{ id: string; body: string }>('select id, body from delivery where workstream_id = $1 or run_id = $2', [oversightWs.id, runId])).map((d) => [d.id, d.body]),
    );
    expect(runCallbacks.filter((r) => deliveredBodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8'))).toEqual([]);

    // (c) Every accepted task exists once and is final, and nothing else was created (retries carry an
    // Idempotency-Key); every task got exactly one webhook delivery, signed with the key, of the type its state says.
    const taskRows = await dbQuery<{ id: string; state: string; updated_tags: unknown; metadata: unknown }>(
      'select id, state, updated_tags, metadata from oversight_task where workstream_id = $1',
      [oversightWs.id],
    );
    const taskState = new Map(taskRows.map((t) => [t.id, t.state]));
    expect([...tasks.accepted].filter((id) => !taskState.has(id))).toEqual([]);
    expect(taskRows.map((t) => t.id).filter((id) => !tasks.accepted.has(id))).toEqual([]);
    expect(taskRows.filter((t) => t.state !== 'COMPLETED' && t.state !== 'ERROR')).toEqual([]);
    expect([...tasks.outcome].filter(([id, outcome]) => taskState.has(id) && taskState.get(id) !== outcome)).toEqual([]);
    // A COMPLETED task holds the tags and metadata its bot sent.
    const taskMismatches = taskRows.filter((t) => {
      const sent = taskResults.get(t.id);
      return t.state === 'COMPLETED' && (!sent || !isDeepStrictEqual(t.updated_tags, sent.updated_tags) || !isDeepStrictEqual(t.metadata, sent.metadata));
    });
    expect(taskMismatches.map((t) => t.id)).toEqual([]);
    const webhooksOf = () => {
      const byTask = new Map<string, { deliveryIds: Set<string>; uuids: Set<string>; types: Set<string>; requests: number; badSignatures: number }>();
      for (const request of receiver.on(taskPath)) {
        const event = JSON.parse(request.rawBody.toString('utf8')) as { task_id: string; uuid: string; event_type: string };
        const entry = byTask.get(event.task_id) ?? { deliveryIds: new Set(), uuids: new Set(), types: new Set(), requests: 0, badSignatures: 0 };
        entry.deliveryIds.add(String(request.headers['x-svc-delivery-id']));
        entry.uuids.add(event.uuid);
        entry.types.add(event.event_type);
        entry.requests++;
        // Checked as the receiver did on arrival (the 5-minute freshness window is relative to then).
        if (!verify(String(request.headers['x-svc-signature']), request.rawBody, oversightKey, { now: Math.floor(request.receivedAt / 1000) }).ok) entry.badSignatures++;
        byTask.set(event.task_id, entry);
      }
      return byTask;
    };
    const webhooks = await eventually(() => (webhooksOf().size >= taskRows.length ? webhooksOf() : undefined), {
      what: `a webhook for each of the ${taskRows.length} tasks`,
      timeoutMs: 120_000,
      intervalMs: 500,
    });
    expect([...webhooks.keys()].filter((id) => !taskState.has(id))).toEqual([]);
    const wrong = taskRows.flatMap((t) => {
      const hook = webhooks.get(t.id)!;
      const type = t.state === 'COMPLETED' ? 'task.result_available' : 'task.error';
      const ok = hook.deliveryIds.size === 1 && hook.uuids.size === 1 && hook.types.size === 1 && hook.types.has(type) && hook.badSignatures === 0;
      return ok ? [] : [{ ...t, deliveryIds: [...hook.deliveryIds], uuids: [...hook.uuids], types: [...hook.types], requests: hook.requests, badSignatures: hook.badSignatures }];
    });
    expect(wrong).toEqual([]);
    // Every webhook is byte for byte the body its delivery row holds.
    expect(receiver.on(taskPath).filter((r) => deliveredBodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8')).map((r) => r.headers['x-svc-delivery-id'])).toEqual([]);
    const deliveries = await dbQuery<{ status: string; n: number }>(
      'select status, count(*)::int as n from delivery where workstream_id = $1 or run_id = $2 group by status',
      [oversightWs.id, runId],
    );
    expect(deliveries).toEqual([{ status: 'delivered', n: taskRows.length + 1 }]);
    expect(problems).toEqual([]);

    const repeats = (requests: number, unique: number) => `${requests} requests (${requests - unique} documented repeats)`;
    const hookRequests = [...webhooks.values()].reduce((sum, w) => sum + w.requests, 0);
    faultLog.push(['(scenario total)', seconds(scenarioStarted)]);
    const summary: Counts = {
      'quality records sent': quality.sent,
      'quality records answered 202': quality.accepted.size,
      'quality records needing retries': quality.retried,
      'quality rows stored (all exactly once, values as sent)': qualityRows.length,
      'QC events (one stored per record under the threshold)': `${storedEventIds.size} records, ${qcMessages.length} messages`,
      'QC replaced events without a client retry (redelivered requests)': replacedWithoutRetry.length,
      'run units': unitRows.length,
      'units Completed / Flagged': `${unitRows.filter((u) => u.status === 'Completed').length} / ${unitRows.filter((u) => u.status === 'Flagged').length}`,
      'unit answers needing retries': units.retried,
      'unit `next` calls retried (a lease may be orphaned)': units.leasesLost,
      'run callbacks received': repeats(runCallbacks.length, runDeliveryIds.size),
      'tasks sent': tasks.sent,
      'tasks answered 201': tasks.accepted.size,
      'tasks stored (each once: Idempotency-Key)': taskRows.length,
      'tasks COMPLETED / ERROR': `${taskRows.filter((t) => t.state === 'COMPLETED').length} / ${taskRows.filter((t) => t.state === 'ERROR').length}`,
      'task `next` calls retried (a lease may be orphaned)': tasks.leasesLost,
      'task webhooks received (one delivery id each)': repeats(hookRequests, webhooks.size),
      'deliveries delivered (DB)': deliveries[0].n,
    };
    console.log(
      `Fault suite, ${instances} instance(s) of every app\n` +
        [...faultLog.map(([name, took]) => `  ${name.padEnd(51)} ${took}`), ...Object.entries(summary).map(([label, value]) => `  ${label.padEnd(51)} ${value}`)].join('\n'),
    );
    mkdirSync(REPORT_DIR, { recursive: true });
    writeFileSync(
      join(REPORT_DIR, `report-${instances}.md`),
      [
        `### ${instances} instance(s) of every app (${new Date().toISOString().slice(0, 10)})`,
        '',
        '| fault | recovery |',
        '| --- | --- |',
        ...faultLog.map(([name, took]) => `| ${name} | ${took} |`),
        '',
        '| checked | count |',
        '| --- | --- |',
        ...Object.entries(summary).map(([label, value]) => `| ${label} | ${value} |`),
        '',
      ].join('\n'),
    );
  }, 900_000);
});
