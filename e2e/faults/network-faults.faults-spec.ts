import 'reflect-metadata';
import { verify } from '@workline/signature';
import {
  adminCreate,
  createPlatformAccount,
  createWorker,
  dbQuery,
  eventually,
  Fleet,
  faultPorts,
  http,
  type HttpResult,
  LoopbackReceiver,
  type ProxyMode,
  TcpProxy,
  withRetries,
} from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { auditQcEvents, expectQcAsStored, withScenarioContext, writeFaultReport } from './fault-audit';
import { AppNetwork, type Dependency } from './network';

/**
 * Network faults (docs/operations.md, "Fault tests"): every app reaches Kafka, PostgreSQL and Redis through
 * TCP proxies of its own (./network.ts), and the webhook dispatcher reaches the receivers
 * through one more. While quality submissions, a run worked by bot workers (with a callback) and oversight
 * tasks (with webhooks) are in flight, the suite adds latency to, resets and black-holes each kind of link
 * (every app's link to that dependency at once), each alone and then two at once. Then every 2xx is checked
 * field by field against the database, and every callback and webhook against its delivery row and its
 * signature. One instance of every app: the links, not the scale-out, are under test (the main fault suite
 * runs both fleets), and one fleet keeps the added time small. Writes .cache/faults/report-network.md.
 *
 * Its watches and its audit read the services' tables on purpose, for the reasons faults.faults-spec.ts gives.
 */

const RUN_UNITS = 600;
/** Units kept for after the last fault, so the run is in flight during every fault. */
const RUN_RESERVE = 60;
const UNIT_BOTS = 6;
const TASK_BOTS = 2;
const PATIENCE_MS = 180_000;
/** Kafka and PostgreSQL black holes last longer than a request waits for its RPC (RPC_TIMEOUT_MS, 10 s). */
const LONG_HOLE_MS = 11_000;
/** A receiver black hole lasts longer than the dispatcher waits for one attempt (ATTEMPT_TIMEOUT_MS, 5 s). */
const RECEIVER_HOLE_MS = 6_000;
/** Resets: every open connection is cut, and new ones are reset for this long. */
const RESET_MS = 2_000;
/**
 * The dispatcher's retry base here. The receiver faults come back to back (resets 2 s, a black hole 6 s,
 * then resets 11 s beside Kafka's black hole: ~23 s with the faults between them), and a delivery that
 * fails throughout goes dead after its 5th attempt, by design. With the fault stage's 1 s base the five
 * attempts span 13.5–16.5 s, so a delivery caught by the first fault could die before the last one ended
 * (seen in a fresh-clone run); at 2.5 s they span 34–41 s.
 */
const RETRY_BASE_MS = 2_500;
const REPORT_DIR = join(__dirname, '..', '..', '.cache', 'faults');

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A link the suite can break: every app's link to one dependency, or the dispatcher's to the receivers. */
type Link = Dependency | 'receiver';
const LINK_NAMES: Record<Link, string> = {
  kafka: 'apps ↔ Kafka',
  postgres: 'apps ↔ PostgreSQL',
  redis: 'apps ↔ Redis',
  receiver: 'dispatcher ↔ receivers',
};

interface Fault {
  link: Link;
  mode: ProxyMode;
  /** How long it lasts; without it, it lasts until every stream has moved under it (the streams must not need the link whole). */
  holdMs?: number;
}

const describeMode = (mode: ProxyMode) =>
  mode.kind === 'latency' ? `+${mode.ms} ms latency each way` : mode.kind === 'reset' ? 'connections reset' : mode.kind;

// Each alone, then two at once. Redis faults, latency and a receiver's resets never stop the streams: they
// must move while the fault lasts (Redis-backed limits fail open; a slower link is still a link).
const FAULTS: Fault[][] = [
  [{ link: 'kafka', mode: { kind: 'latency', ms: 100 } }],
  [{ link: 'kafka', mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: 'kafka', mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: 'postgres', mode: { kind: 'latency', ms: 20 } }],
  [{ link: 'postgres', mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: 'postgres', mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS }],
  [{ link: 'redis', mode: { kind: 'latency', ms: 100 } }],
  [{ link: 'redis', mode: { kind: 'reset' } }],
  [{ link: 'redis', mode: { kind: 'blackhole' } }],
  [{ link: 'receiver', mode: { kind: 'latency', ms: 500 } }],
  [{ link: 'receiver', mode: { kind: 'reset' }, holdMs: RESET_MS }],
  [{ link: 'receiver', mode: { kind: 'blackhole' }, holdMs: RECEIVER_HOLE_MS }],
  [
    { link: 'postgres', mode: { kind: 'reset' }, holdMs: RESET_MS },
    { link: 'kafka', mode: { kind: 'latency', ms: 100 } },
  ],
  [
    { link: 'kafka', mode: { kind: 'blackhole' }, holdMs: LONG_HOLE_MS },
    { link: 'receiver', mode: { kind: 'reset' }, holdMs: LONG_HOLE_MS },
  ],
  [
    { link: 'redis', mode: { kind: 'blackhole' } },
    { link: 'postgres', mode: { kind: 'latency', ms: 20 } },
  ],
];

describe('network faults between the apps and Kafka, PostgreSQL, Redis and the receivers', () => {
  const receiver = new LoopbackReceiver();
  let receiverProxy: TcpProxy;
  let network: AppNetwork;
  let fleet: Fleet;
  const gw = () => fleet.gatewayUrls[0];

  beforeAll(async () => {
    await receiver.start();
    receiverProxy = await new TcpProxy('dispatcher → receiver', {
      host: '127.0.0.1',
      port: Number(new URL(receiver.url('/')).port),
    }).start();
    network = await AppNetwork.start();
    fleet = await Fleet.start(1, faultPorts().gateways, { WEBHOOK_RETRY_BASE_MS: String(RETRY_BASE_MS) }, network.env());
  }, 300_000);

  afterAll(async () => {
    await fleet?.stop();
    await network?.stop();
    await receiverProxy?.stop();
    await receiver.stop();
  });

  it('every 2xx is durable and as sent, every callback and webhook arrives as its delivery row says, signed', async () => {
    const tag = `n-${randomBytes(3).toString('hex')}`;
    const runPath = `/run-${tag}`;
    const taskPath = `/tasks-${tag}`;
    /** Callback URLs lead through the receiver's proxy. */
    const callbackUrl = (path: string) => `http://${receiverProxy.address}${path}`;

    const qualityAccount = await adminCreate<{ id: string }>('/accounts', { name: `Network quality ${tag}` });
    const qualityWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: qualityAccount.id,
      name: 'Network',
      use_cases: [{ id: 'uc-n', task_definition_ids: ['td-n'] }],
      qc_sample_rate: 0,
    });
    const qualityKey = (await adminCreate<{ key: string }>(`/workstreams/${qualityWs.id}/api-keys`, {})).key;
    const platform = await createPlatformAccount(`Network ${tag}`);
    const oversightAccount = await adminCreate<{ id: string }>('/accounts', { name: `Network oversight ${tag}` });
    const oversightWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: oversightAccount.id,
      name: 'Network',
      use_cases: [],
    });
    const oversightKey = (await adminCreate<{ key: string }>(`/workstreams/${oversightWs.id}/api-keys`, {})).key;
    const configuration = await adminCreate<{ id: string }>(`/workstreams/${oversightWs.id}/configurations`, {
      name: 'Network',
      extended_events: true,
      tool_project_id: 'tp-net',
    });
    const unitWorkers = await Promise.all(Array.from({ length: UNIT_BOTS }, () => createWorker()));
    const taskWorkers = await Promise.all(Array.from({ length: TASK_BOTS }, () => createWorker()));

    const created = await http<{ id: string }>('POST', `${gw()}/v4/runs`, {
      headers: platform.auth,
      body: {
        line_id: platform.lineId,
        callback_url: callbackUrl(runPath),
        units: Array.from({ length: RUN_UNITS }, (_, i) => ({ identifier: `u${i}` })),
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id;

    const state = { faultsDone: false, runProcessed: false, tasksDone: false };
    const problems: string[] = [];
    const unexpected = (what: string, result?: HttpResult) =>
      problems.push(`${what}: ${result ? `${result.status} ${result.text.slice(0, 200)}` : 'gave up after retrying'}`);
    /** A client's request: retried on a connection error, a timeout (30 s) or a 5xx, with the same body. */
    const send = <T>(method: string, path: string, headers: Record<string, string>, body?: object) =>
      withRetries(() => http<T>(method, `${gw()}${path}`, { headers, body, timeoutMs: 30_000 }), Date.now() + PATIENCE_MS);

    // (a) Quality submissions with a unique_id each (a retry replaces, never adds).
    const quality = { sent: new Map<string, Record<string, string | number>>(), accepted: new Set<string>(), retried: new Set<string>() };
    const qualityStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        const uniqueId = `${tag}-q${i}`;
        const record = {
          unique_id: uniqueId,
          use_case_id: 'uc-n',
          task_definition_id: 'td-n',
          task_id: `t-${uniqueId}`,
          worker_id: `net${i % 5}@example.com`,
          review_completed_at: new Date(Date.UTC(2026, 10, 2, 8, 0, i % 3600, i % 1000)).toISOString(),
          review_score: (i % 10) / 10,
          review_explanation: `network run ${tag}, record ${i}`,
        };
        quality.sent.set(uniqueId, record);
        const { result, attempts } = await send(
          `POST`,
          `/v1/workstreams/${qualityWs.id}/task_reviewed`,
          { 'x-api-key': qualityKey },
          { workstream_id: qualityWs.id, ...record },
        );
        if (attempts > 1) quality.retried.add(uniqueId);
        if (result?.status === 202) quality.accepted.add(uniqueId);
        else unexpected(`task_reviewed ${uniqueId}`, result);
        await pause(100);
      }
    })();

    // (b) Bots work the run: next, then complete (flag every tenth unit).
    const units = new Map<string, 'Completed' | 'Flagged'>();
    const unitOutput = (identifier: string) => ({ label: `net-${identifier}`, n: Number(identifier.slice(1)) });
    const FLAG_REASON = 'network bot flags every tenth unit';
    const unitBot = async (worker: Record<string, string>) => {
      while (!state.runProcessed) {
        if (!state.faultsDone && units.size >= RUN_UNITS - RUN_RESERVE) {
          await pause(250);
          continue;
        }
        const next = await send<{ assignment_id: string; input: { identifier: string } }>(
          'POST',
          '/workforce/v1/assignments/next',
          worker,
          { kind: 'unit', line_id: platform.lineId },
        );
        if (next.result?.status !== 200) {
          if (next.result?.status === 204) await pause(500);
          else unexpected('next unit', next.result);
          continue;
        }
        const { assignment_id: assignment, input } = next.result.body;
        const flag = Number(input.identifier.slice(1)) % 10 === 0;
        const { result } = await send(
          'POST',
          `/workforce/v1/assignments/${assignment}/${flag ? 'flag' : 'complete'}`,
          worker,
          flag ? { reason: FLAG_REASON } : { output: unitOutput(input.identifier) },
        );
        // 409 "already ...": an earlier attempt whose answer was lost went through; "lease expired": it comes back.
        if (result?.status === 200 || (result?.status === 409 && /already (completed|flagged)/.test(result.text)))
          units.set(input.identifier, flag ? 'Flagged' : 'Completed');
        else if (!(result?.status === 409 && /lease expired/.test(result.text))) unexpected(`close unit ${input.identifier}`, result);
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

    // (c) Oversight tasks (grant, upload, task with a webhook URL and an Idempotency-Key), closed by bots.
    const tasks = { accepted: new Set<string>(), outcome: new Map<string, 'COMPLETED' | 'ERROR'>(), results: new Map<string, object>() };
    const taskStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        const grant = await send<{ media_upload_url: string; media_key: string }>(
          'POST',
          '/v1/signed-url',
          { 'x-api-key': oversightKey },
          { configuration_id: configuration.id },
        );
        if (grant.result?.status !== 200) {
          unexpected('signed-url', grant.result);
          continue;
        }
        const upload = new URL(grant.result.body.media_upload_url);
        const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), randomBytes(24)]);
        const put = await withRetries(async () => {
          const response = await fetch(`${gw()}${upload.pathname}${upload.search}`, {
            method: 'PUT',
            headers: { 'content-type': 'image/png' },
            body: png,
            signal: AbortSignal.timeout(30_000),
          });
          return { status: response.status, headers: response.headers, body: undefined, text: await response.text() };
        }, Date.now() + PATIENCE_MS);
        if (put.result?.status !== 200) {
          unexpected('media upload', put.result);
          continue;
        }
        const task = await send<{ task_id: string }>(
          'POST',
          '/v1/tasks',
          { 'x-api-key': oversightKey, 'idempotency-key': `net-task-${tag}-${i}` },
          { media_key: grant.result.body.media_key, configuration_id: configuration.id, callback_url: callbackUrl(taskPath) },
        );
        if (task.result?.status === 201) tasks.accepted.add(task.result.body.task_id);
        else unexpected('create task', task.result);
        await pause(300);
      }
    })();
    const taskBot = async (worker: Record<string, string>, b: number) => {
      for (let n = 0; !state.tasksDone; n++) {
        const next = await send<{ assignment_id: string; task_id: string }>('POST', '/workforce/v1/assignments/next', worker, {
          kind: 'task',
        });
        if (next.result?.status !== 200) {
          if (next.result?.status === 204) await pause(500);
          else unexpected('next task', next.result);
          continue;
        }
        const { assignment_id: assignment, task_id: taskId } = next.result.body;
        const flag = (n + b) % 4 === 0;
        const sent = {
          updated_tags: [{ value: `net-${taskId.slice(-4)}`, confidence_score: 0.8 }],
          metadata: [{ key: 'bot', value: `n${b}` }],
        };
        const { result } = await send(
          'POST',
          `/workforce/v1/assignments/${assignment}/${flag ? 'flag' : 'complete'}`,
          worker,
          flag ? { reason: 'network bot flags every fourth task' } : sent,
        );
        if (result?.status === 200 || (result?.status === 409 && /already closed/.test(result.text))) {
          tasks.outcome.set(taskId, flag ? 'ERROR' : 'COMPLETED');
          if (!flag) tasks.results.set(taskId, sent);
        } else if (result?.status !== 404) unexpected(`close task ${taskId}`, result);
      }
    };
    const taskBots = taskWorkers.map(taskBot);

    // Progress: every stream accepted something new (units: unless the run waits for the faults to end).
    const mark = () => ({ q: quality.accepted.size, u: units.size, t: tasks.accepted.size, hooks: receiver.requests.length });
    const progressed = async (what: string, needHooks = false) => {
      const before = mark();
      await eventually(
        () => {
          const now = mark();
          return (
            now.q > before.q &&
            now.t > before.t &&
            (now.u > before.u || units.size >= RUN_UNITS - RUN_RESERVE) &&
            (!needHooks || now.hooks > before.hooks)
          );
        },
        { what: `every stream to make progress ${what}`, timeoutMs: 240_000, intervalMs: 250 },
      );
    };
    const proxiesOf = (link: Link): TcpProxy[] =>
      link === 'receiver'
        ? [receiverProxy]
        : (['gateway', 'performance', 'oversight', 'platform-runs', 'webhook-dispatcher'] as const).map((app) => network.proxy(app, link));
    const countsOf = (link: Link) =>
      proxiesOf(link).reduce((sum, p) => ({ reset: sum.reset + p.counts.reset, stalled: sum.stalled + p.counts.stalled }), {
        reset: 0,
        stalled: 0,
      });

    const seconds = (since: number) => `${((Date.now() - since) / 1000).toFixed(1)} s`;
    const faultLog: [string, string][] = [];
    const inject = async (faults: Fault[]) => {
      const name = faults
        .map((f) => `${LINK_NAMES[f.link]}: ${describeMode(f.mode)}${f.holdMs ? ` ${f.holdMs / 1000} s` : ' (streams must move under it)'}`)
        .join(' + ');
      const before = faults.map((f) => countsOf(f.link));
      const started = Date.now();
      for (const fault of faults) for (const proxy of proxiesOf(fault.link)) proxy.set(fault.mode);
      const lift = (fault: Fault) => proxiesOf(fault.link).forEach((proxy) => proxy.pass());
      // A timed fault is lifted when its time is up; one without a duration once every stream (and, for the
      // receiver link, the webhooks) moved under it and under the faults of its pair that are still on.
      const held = faults.filter((f) => f.holdMs === undefined);
      await Promise.all([
        held.length
          ? progressed(
              `under ${name}`,
              held.some((f) => f.link === 'receiver'),
            ).then(() => held.forEach(lift))
          : undefined,
        ...faults.filter((f) => f.holdMs !== undefined).map((f) => pause(f.holdMs!).then(() => lift(f))),
      ]);
      const healed = Date.now();
      await progressed(
        `after ${name}`,
        faults.some((f) => f.link === 'receiver'),
      );
      const hit = faults.map((f, i) => {
        const now = countsOf(f.link);
        return `${now.reset - before[i].reset} reset, ${now.stalled - before[i].stalled} stalled`;
      });
      faultLog.push([name, `${seconds(started)} faulted (${hit.join('; ')}), ${seconds(healed)} until every stream moved again`]);
      console.log(faultLog.at(-1)!.join(': '));
    };

    // A failed check (or a stream that stopped moving) carries the faults injected so far and the clients'
    // unexpected answers: npm test's digest of failures shows them.
    try {
      const scenarioStarted = Date.now();
      await progressed('at start-up');
      for (const faults of FAULTS) await inject(faults);
      state.faultsDone = true;
      const recoveryStarted = Date.now();

      await Promise.all([qualityStream, taskStream]);
      await Promise.all([...unitBots, runWatch]);
      await eventually(
        async () =>
          (
            await dbQuery<{ n: number }>(
              `select count(*)::int as n from oversight_task where workstream_id = $1 and state not in ('COMPLETED', 'ERROR')`,
              [oversightWs.id],
            )
          )[0].n === 0,
        { what: 'every oversight task to be final', timeoutMs: 180_000, intervalMs: 1000 },
      );
      state.tasksDone = true;
      await Promise.all(taskBots);
      faultLog.push(['(all faults injected, then: run Processed, tasks final)', seconds(recoveryStarted)]);

      // The audit: straight from the services' tables (see the header), then the receivers and the QC topic.
      // (a) Every 202 is stored exactly once, holding what was sent.
      const qualityRows = await dbQuery<Record<string, string | number | Date>>(
        `select id, unique_id, use_case_id, task_definition_id, task_id, worker_id, review_completed_at, review_score, review_explanation
         from performance_quality_record where workstream_id = $1`,
        [qualityWs.id],
      );
      const storedTimes = new Map<string, number>();
      for (const row of qualityRows) storedTimes.set(String(row.unique_id), (storedTimes.get(String(row.unique_id)) ?? 0) + 1);
      expect([...quality.accepted].filter((id) => storedTimes.get(id) !== 1)).toEqual([]);
      expect([...storedTimes].filter(([, n]) => n !== 1)).toEqual([]);
      const qualityMismatches = qualityRows.filter((row) => {
        const sent = quality.sent.get(String(row.unique_id));
        const { id: _id, ...values } = row;
        return !sent || !isDeepStrictEqual({ ...values, review_completed_at: (row.review_completed_at as Date).toISOString() }, sent);
      });
      expect(qualityMismatches).toEqual([]);
      // Every stored record under the QC threshold is on the QC topic with exactly one "stored" event, carrying
      // the stored values; no other record is. More events of a record are "replaced" ones: a client retry, or a
      // request Kafka redelivered (the main scenario's rule, docs/operations.md); the report counts the latter.
      const qc = await auditQcEvents(qualityWs.id, qualityRows, quality.retried);
      expectQcAsStored(qc);

      // (b) The run is Processed, every unit as its bot left it, holding what the bot sent.
      const [run] = await dbQuery<{ status: string; pending_units: number }>(
        'select status, pending_units from platform_run where id = $1',
        [runId],
      );
      expect(run).toEqual({ status: 'Processed', pending_units: 0 });
      const unitRows = await dbQuery<{ identifier: string; status: string; output: unknown; flag_reason: string | null }>(
        "select input->>'identifier' as identifier, status, output, flag_reason from platform_unit where run_id = $1",
        [runId],
      );
      expect(unitRows).toHaveLength(RUN_UNITS);
      expect(units.size).toBe(RUN_UNITS);
      expect(
        unitRows.filter(
          (u) =>
            units.get(u.identifier) !== u.status ||
            (u.status === 'Completed'
              ? !isDeepStrictEqual(u.output, unitOutput(u.identifier)) || u.flag_reason !== null
              : u.flag_reason !== FLAG_REASON),
        ),
      ).toEqual([]);
      const polled = await http<{ status: string }>('GET', `${gw()}/v4/runs/${runId}`, { headers: platform.auth });
      expect(polled.body.status).toBe('Processed');

      // (c) Every 201 is one task, final as its bot left it, COMPLETED ones holding the tags and metadata sent.
      const taskRows = await dbQuery<{ id: string; state: string; updated_tags: unknown; metadata: unknown }>(
        'select id, state, updated_tags, metadata from oversight_task where workstream_id = $1',
        [oversightWs.id],
      );
      expect(taskRows.map((t) => t.id).sort()).toEqual([...tasks.accepted].sort());
      expect(taskRows.filter((t) => !tasks.outcome.has(t.id) || tasks.outcome.get(t.id) !== t.state)).toEqual([]);
      expect(
        taskRows.filter(
          (t) =>
            t.state === 'COMPLETED' && !isDeepStrictEqual({ updated_tags: t.updated_tags, metadata: t.metadata }, tasks.results.get(t.id)),
        ),
      ).toEqual([]);

      // Callbacks and webhooks: one delivery id per run and task (repeats of it are the documented at-least-once
      // window), the body byte for byte the delivery row's, the webhook signatures valid, every row delivered.
      const deliveryRows = await eventually(
        async () => {
          const rows = await dbQuery<{ id: string; body: string; status: string; run_id: string | null }>(
            'select id, body, status, run_id from delivery where workstream_id = $1 or run_id = $2',
            [oversightWs.id, runId],
          );
          return rows.length === taskRows.length + 1 && rows.every((r) => r.status === 'delivered') ? rows : undefined;
        },
        { what: 'every delivery to be delivered', timeoutMs: 120_000, intervalMs: 500 },
      );
      const bodies = new Map(deliveryRows.map((d) => [d.id, d.body]));
      const runCallbacks = receiver.on(runPath);
      expect(new Set(runCallbacks.map((r) => String(r.headers['x-svc-delivery-id']))).size).toBe(1);
      expect(JSON.parse(runCallbacks[0].rawBody.toString('utf8'))).toEqual(polled.body);
      const hooks = receiver.on(taskPath);
      expect(
        [...runCallbacks, ...hooks].filter((r) => bodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8')).length,
      ).toBe(0);
      const byTask = new Map<string, { ids: Set<string>; types: Set<string> }>();
      for (const request of hooks) {
        const event = JSON.parse(request.rawBody.toString('utf8')) as { task_id: string; event_type: string };
        const entry = byTask.get(event.task_id) ?? { ids: new Set<string>(), types: new Set<string>() };
        entry.ids.add(String(request.headers['x-svc-delivery-id']));
        entry.types.add(event.event_type);
        byTask.set(event.task_id, entry);
      }
      expect(
        hooks.filter(
          (r) => !verify(String(r.headers['x-svc-signature']), r.rawBody, oversightKey, { now: Math.floor(r.receivedAt / 1000) }).ok,
        ).length,
      ).toBe(0);
      expect(
        taskRows.filter((t) => {
          const hook = byTask.get(t.id);
          return (
            !hook ||
            hook.ids.size !== 1 ||
            hook.types.size !== 1 ||
            !hook.types.has(t.state === 'COMPLETED' ? 'task.result_available' : 'task.error')
          );
        }),
      ).toEqual([]);
      expect([...byTask.keys()].filter((id) => !tasks.accepted.has(id))).toEqual([]);
      expect(problems).toEqual([]);

      faultLog.push(['(scenario total)', seconds(scenarioStarted)]);
      const summary: Record<string, string | number> = {
        'quality records answered 202 (each stored once, values as sent)': quality.accepted.size,
        'quality records needing client retries': quality.retried.size,
        'QC events (one stored per record under the threshold, values as stored)': `${qc.shouldQc.length} records, ${qc.messages} messages`,
        'QC replaced events without a client retry (redelivered requests)': qc.replacedWithoutRetry.length,
        'run units (each as its bot left it, output / flag reason as sent)': unitRows.length,
        'run callbacks received (one delivery id, body = delivery row = GET)': runCallbacks.length,
        'tasks answered 201 (each stored once, final, tags as sent)': taskRows.length,
        'task webhooks received (one delivery id each, signed, body = delivery row)': `${hooks.length} requests for ${byTask.size} tasks`,
        'deliveries delivered (DB)': deliveryRows.length,
        'connections through the proxies (Kafka / PostgreSQL / Redis / receiver)': `${network.counts('kafka').accepted} / ${network.counts('postgres').accepted} / ${network.counts('redis').accepted} / ${receiverProxy.counts.accepted}`,
      };
      console.log(writeFaultReport(join(REPORT_DIR, 'report-network.md'), 'Network faults, one instance of every app', faultLog, summary));
    } catch (error) {
      throw withScenarioContext(error, faultLog, problems);
    }
  }, 900_000);
});
