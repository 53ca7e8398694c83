import 'reflect-metadata';
import { verify } from '@workline/signature';
import {
  adminCreate,
  adminHeaders,
  createPlatformAccount,
  createWorker,
  dbQuery,
  eventually,
  failedAttemptsBetween,
  FLEET_APPS,
  Fleet,
  faultPorts,
  flakyResponder,
  flushRedis,
  http,
  type HttpResult,
  kafkaOutage,
  killKafka,
  killRedis,
  LoopbackReceiver,
  type PlatformAccount,
  postgresOutage,
  startRedis,
  withRetries,
} from '@workline/testing';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { auditQcEvents, expectQcAsStored, withScenarioContext, writeFaultReport } from './fault-audit';

/**
 * "Nothing accepted is lost" under faults (docs/operations.md, "Fault tests"). While the streams are in
 * flight (quality submissions, a 2,000-unit run worked by bot workers with a callback, oversight tasks with
 * webhooks, throughput records whose API key is rotated on the way, a bulk CSV import, v3 batches and a run
 * aborted under fire on a second line, redeliveries; receivers answer 500 or too late to a share of the
 * attempts), every app is SIGKILLed and restarted in turn (with two instances, also both of one app at once),
 * one is killed again while it starts, Kafka is away longer than an RPC's timeout and then SIGKILLed,
 * PostgreSQL is away as long (immediate stop), the broker and an app are killed at once, Redis is killed
 * (the streams must move without it: limits fail open), started again empty, and flushed. Clients retry like real ones. Then every answer
 * the clients got
 * as 2xx is checked, field by field, against the database, the receivers and the QC topic. The same
 * scenario runs with one and with two instances of every app (two gateways behind a readiness-driven
 * layer-4 balancer that spreads the clients' connections over both); with two, it ends with a rolling restart of every
 * instance that must cost no client attempt a 5xx or a connection error. Each run writes its fault table to
 * .cache/faults/report-<instances>.md.
 *
 * Reads tables on purpose: the watches that wait for the runs and tasks to end and the audit query the
 * services' tables directly (platform_run, platform_unit, oversight_task, delivery, delivery_attempt,
 * performance_*), because stored rows are the ground truth for "nothing accepted is lost" (rows no API lists
 * in full, duplicates an API would hide) and the watches must keep polling while gateways are down. The fault
 * suites are the only e2e suites meant to do so (docs/architecture.md, "Where tests live").
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
/** Line 2 carries the v3 batches and the run that is aborted under fire; these bots work it. */
const LINE2_BOTS = 4;
/**
 * Units of the run that is aborted while platform-runs is crashed: far more than the bots do before the
 * abort. They did 250–360 of 600 before the unit claims went along an index; then, in a fresh-clone run,
 * all 600 in 19 s, before the platform-runs fault: the abort found the run Processed (405 at once) and the
 * scenario aborted nothing.
 */
const ABORT_RUN_UNITS = 3000;
/**
 * Units of that run the bots leave until the abort is sent, so it always finds the run in flight: on a fast
 * machine the line-2 bots did all 3,000 before the platform-runs fault (fresh clone of e9c540c, 405 at once).
 */
const ABORT_RUN_RESERVE = 300;
const V3_BATCH_UNITS = 6;
const V3_BATCH_PAUSE_MS = 2500;
/** The throughput stream rotates its API key (overlap 0) before every ROTATE_EVERY-th record. */
const ROTATE_EVERY = 12;
/** Rows of the bulk CSV import (three transactions of 2,000 rows, the last one partial). */
const IMPORT_ROWS = 5000;
const REDELIVER_EVERY_MS = 3000;
/** The dispatcher gives up on an attempt after 5 s (libs/webhook-dispatcher ATTEMPT_TIMEOUT_MS): late answers come after that. */
const LATE_ANSWER_MS = 6000;
const REPORT_DIR = join(__dirname, '..', '..', '.cache', 'faults');

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
  /**
   * Where clients send their requests: the fleet's load balancer, which spreads their connections over the
   * gateways whose readiness answers 200 (Fleet.gatewayUrl).
   */
  const gw = () => fleet.gatewayUrl();

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
    const v3Path = `/v3-${tag}`;
    const abortPath = `/abort-${tag}`;
    // Every receiver fails a share of the attempts (500) and answers others only after the dispatcher gave
    // up on them (a timeout on its side), while the apps crash: every delivery must still arrive, with
    // exactly one success recorded per delivery round.
    const flaky = flakyResponder({ failShare: 0.2, slowShare: 0.1, slowMs: LATE_ANSWER_MS, maxBadAttempts: 2 });
    for (const path of [runPath, taskPath, v3Path, abortPath]) receiver.respond(path, flaky.responder);

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
    const oversightWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: oversightAccount.id,
      name: 'Faults',
      use_cases: [],
    });
    const oversightKey = (await adminCreate<{ key: string }>(`/workstreams/${oversightWs.id}/api-keys`, {})).key;
    const configuration = await adminCreate<{ id: string }>(`/workstreams/${oversightWs.id}/configurations`, {
      name: 'Faults',
      extended_events: true,
      tool_project_id: 'tp-faults',
    });
    const unitWorkers = await Promise.all(Array.from({ length: UNIT_BOTS }, () => createWorker()));
    const taskWorkers = await Promise.all(Array.from({ length: TASK_BOTS }, () => createWorker()));
    // Throughput records (their key is rotated under fire) and the bulk CSV import (a key of its own).
    const throughputWs = await adminCreate<{ id: string }>('/workstreams', {
      account_id: qualityAccount.id,
      name: 'Faults throughput',
      use_cases: [{ id: 'uc-t', task_definition_ids: ['td-t'] }],
      qc_sample_rate: 0,
    });
    let rotatingKey = await adminCreate<{ id: string; key: string }>(`/workstreams/${throughputWs.id}/api-keys`, {});
    const importKey = (await adminCreate<{ key: string }>(`/workstreams/${throughputWs.id}/api-keys`, {})).key;
    const line2Id = (await adminCreate<{ id: string }>(`/accounts/${platform.id}/lines`, { name: 'Faults line 2' })).id;
    const line2Workers = await Promise.all(Array.from({ length: LINE2_BOTS }, () => createWorker()));

    // The run exists before the faults start (POST /v4/runs has no idempotency key, so it is created once).
    const created = await http<{ id: string }>('POST', `${gw()}/v4/runs`, {
      headers: platform.auth,
      body: {
        line_id: platform.lineId,
        callback_url: receiver.url(runPath),
        units: Array.from({ length: RUN_UNITS }, (_, i) => ({ identifier: `u${i}` })),
      },
    });
    expect(created.status).toBe(201);
    const runId = created.body.id;
    const abortCreated = await http<{ id: string }>('POST', `${gw()}/v4/runs`, {
      headers: platform.auth,
      body: {
        line_id: line2Id,
        callback_url: receiver.url(abortPath),
        units: Array.from({ length: ABORT_RUN_UNITS }, (_, i) => ({ identifier: `a${i}` })),
      },
    });
    expect(abortCreated.status).toBe(201);
    const abortRunId = abortCreated.body.id;

    const state = { faultsDone: false, runProcessed: false, tasksDone: false, line2StreamsDone: false, line2Done: false };
    const problems: string[] = [];
    const patience = () => Date.now() + PATIENCE_MS;
    /** Completes or flags a leased unit or task through the work API, retrying like a client. */
    const closeAssignment = (worker: Record<string, string>, assignment: string, flag: boolean, body: object) =>
      withRetries(
        () =>
          http('POST', `${gw()}/workforce/v1/assignments/${assignment}/${flag ? 'flag' : 'complete'}`, {
            headers: worker,
            body,
            timeoutMs: 30_000,
          }),
        patience(),
      );
    /** Leases the next unit or task; undefined (after a pause when there is nothing to do) when none was leased. */
    const nextAssignment = async <T>(
      worker: Record<string, string>,
      body: object,
      counter: { leasesLost: number },
    ): Promise<T | undefined> => {
      const next = await withRetries(
        () => http<T>('POST', `${gw()}/workforce/v1/assignments/next`, { headers: worker, body, timeoutMs: 30_000 }),
        patience(),
      );
      // A `next` whose answer was lost leaves a lease nobody knows: it ends after UNIT/TASK_LEASE_SECONDS.
      if (next.attempts > 1) counter.leasesLost++;
      if (next.result?.status === 200) return next.result.body;
      if (next.result?.status === 204) await pause(500);
      else unexpected(`next ${JSON.stringify(body)}`, next.result);
      return undefined;
    };
    const unexpected = (what: string, result?: HttpResult) =>
      problems.push(`${what}: ${result ? `${result.status} ${result.text.slice(0, 200)}` : 'gave up after retrying'}`);

    // (a) Quality submissions, each with a unique_id (the API's idempotency: a retry replaces, never adds).
    const quality = {
      sent: 0,
      accepted: new Set<string>(),
      retried: 0,
      bodies: new Map<string, Record<string, string | number>>(),
      retriedIds: new Set<string>(),
    };
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
          () =>
            http('POST', `${gw()}/v1/workstreams/${qualityWs.id}/task_reviewed`, {
              headers: { 'x-api-key': qualityKey },
              body,
              timeoutMs: 30_000,
            }),
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
        const leased = await nextAssignment<{ assignment_id: string; input: { identifier: string } }>(
          worker,
          { kind: 'unit', line_id: platform.lineId },
          units,
        );
        if (!leased) continue;
        const { assignment_id: assignment, input } = leased;
        const flag = Number(input.identifier.slice(1)) % 10 === 0;
        const done = await closeAssignment(
          worker,
          assignment,
          flag,
          flag ? { reason: UNIT_FLAG_REASON } : { output: unitOutput(input.identifier) },
        );
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
    const taskResult = (taskId: string, bot: number) => ({
      updated_tags: [{ value: `ok-${taskId.slice(-4)}`, confidence_score: 0.9 }],
      metadata: [{ key: 'bot', value: String(bot) }],
    });
    /** What the bot that closed each task sent (a task is COMPLETED with exactly these tags and metadata). */
    const taskResults = new Map<string, ReturnType<typeof taskResult>>();
    const taskStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        tasks.sent++;
        const grant = await withRetries(
          () =>
            http<{ media_upload_url: string; media_key: string }>('POST', `${gw()}/v1/signed-url`, {
              headers: { 'x-api-key': oversightKey },
              body: { configuration_id: configuration.id },
              timeoutMs: 30_000,
            }),
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
          const response = await fetch(`${gw()}${uploadPath.pathname}${uploadPath.search}`, {
            method: 'PUT',
            headers: { 'content-type': 'image/png' },
            body: png,
            signal: AbortSignal.timeout(30_000),
          });
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

    // (d) Throughput records (`task_completed`, each with a unique_id); before every ROTATE_EVERY-th record the
    // stream's API key is rotated with no overlap: once the rotation answered, the old key is refused (401)
    // on every gateway and what it sent is not stored, and the new key works on every gateway.
    const throughput = {
      sent: 0,
      accepted: new Set<string>(),
      bodies: new Map<string, Record<string, unknown>>(),
      retried: 0,
      refused: new Set<string>(),
      rotations: 0,
      rotationsLost: 0,
    };
    const throughputBody = (i: number, uniqueId: string) => {
      const started = Date.UTC(2026, 10, 2, 8, 0, 0) + i * 60_000 + (i % 1000);
      return {
        use_case_id: 'uc-t',
        task_definition_id: 'td-t',
        unique_id: uniqueId,
        task_id: uniqueId,
        worker_id: `bot${i % 5}@example.com`,
        task_started_at: new Date(started).toISOString(),
        task_completed_at: new Date(started + ((i % 50) + 1) * 1000).toISOString(),
        task_count: 1 + (i % 3),
        subtask_count: i % 4,
        task_metadata: { stream: 'throughput', n: String(i) },
      };
    };
    const submitThroughput = async (uniqueId: string, body: Record<string, unknown>, base?: string) => {
      throughput.sent++;
      throughput.bodies.set(uniqueId, body);
      const { result, attempts } = await withRetries(async () => {
        if (base) await fleet.inRotationWait(base);
        return http('POST', `${base ?? gw()}/v1/workstreams/${throughputWs.id}/task_completed`, {
          headers: { 'x-api-key': rotatingKey.key },
          body,
          timeoutMs: 30_000,
        });
      }, patience());
      throughput.retried += attempts > 1 ? 1 : 0;
      if (result?.status === 202) throughput.accepted.add(uniqueId);
      else unexpected(`task_completed ${uniqueId}`, result);
    };
    const rotateKey = async (n: number) => {
      const old = rotatingKey;
      const rotated = await withRetries(
        () =>
          http<{ id: string; key: string }>('POST', `${gw()}/admin/v1/api-keys/${old.id}/rotate`, {
            headers: adminHeaders(),
            body: { overlap_seconds: 0 },
            timeoutMs: 30_000,
          }),
        patience(),
      );
      if (rotated.result?.status === 201) {
        rotatingKey = rotated.result.body;
        throughput.rotations++;
      } else if (rotated.result?.status === 409 && rotated.attempts > 1 && /is expired and cannot be rotated/.test(rotated.result.text)) {
        // An earlier attempt rotated the key (overlap 0: the old one expired at once) but its answer was lost
        // (a crash, or 503 "stored, but the gateways could not be told" while Redis is down): the new key is
        // unknown to the client, which gets a fresh one. Known limit (docs/operations.md, "Fault tests").
        throughput.rotationsLost++;
        const fresh = await withRetries(
          () =>
            http<{ id: string; key: string }>('POST', `${gw()}/admin/v1/workstreams/${throughputWs.id}/api-keys`, {
              headers: adminHeaders(),
              body: {},
              timeoutMs: 30_000,
            }),
          patience(),
        );
        if (fresh.result?.status !== 201) return unexpected('new API key after a lost rotation', fresh.result);
        rotatingKey = fresh.result.body;
      } else {
        return unexpected(`rotate API key ${old.id}`, rotated.result);
      }
      for (const [g, url] of fleet.gatewayUrls.entries()) {
        const refusedId = `${tag}-t-refused-${n}-${g}`;
        const refused = await withRetries(async () => {
          // This client must reach this one gateway: it waits until the balancer would send it there.
          await fleet.inRotationWait(url);
          return http('POST', `${url}/v1/workstreams/${throughputWs.id}/task_completed`, {
            headers: { 'x-api-key': old.key },
            body: throughputBody(n, refusedId),
            timeoutMs: 30_000,
          });
        }, patience());
        if (refused.result?.status === 401) throughput.refused.add(refusedId);
        else unexpected(`the rotated-out key on ${url}`, refused.result);
        const newKeyId = `${tag}-t-new-${n}-${g}`;
        await submitThroughput(newKeyId, throughputBody(n, newKeyId), url);
      }
    };
    const throughputStream = (async () => {
      for (let i = 0; !state.faultsDone; i++) {
        if (i > 0 && i % ROTATE_EVERY === 0) await rotateKey(i);
        const uniqueId = `${tag}-t${i}`;
        await submitThroughput(uniqueId, throughputBody(i, uniqueId));
        await pause(200);
      }
    })();

    // (e) A bulk CSV import of throughput rows through the presigned URL, started with the faults (its
    // processing, 2,000 rows per transaction, overlaps the first crashes); the counters must be exact and no
    // row stored twice, whatever a crash interrupted.
    const importRow = (r: number) => ({
      unique_id: `${tag}-csv${r}`,
      task_id: `csv-task-${r}`,
      worker_id: `csv${r % 9}@example.com`,
      task_completed_at: new Date(Date.UTC(2026, 10, 3, 0, 0, 0) + r * 1000 + (r % 1000)).toISOString(),
      task_count: 1 + (r % 4),
      row: String(r),
    });
    const importCsv =
      ['unique_id,task_id,worker_id,task_completed_at,task_count,use_case_id,task_definition_id,metadata.row']
        .concat(
          Array.from({ length: IMPORT_ROWS }, (_, r) => importRow(r)).map(
            (row) => `${row.unique_id},${row.task_id},${row.worker_id},${row.task_completed_at},${row.task_count},uc-t,td-t,${row.row}`,
          ),
        )
        .join('\n') + '\n';
    const csvImport: { uploadId?: string; putAttempts: number; status?: Record<string, unknown> } = { putAttempts: 0 };
    const importStream = (async () => {
      const grant = await withRetries(
        () =>
          http<{ upload_url: string; upload_id: string }>(
            'POST',
            `${gw()}/v1/workstreams/${throughputWs.id}/performance/generate-presigned-url`,
            {
              headers: { 'x-api-key': importKey },
              body: { kind: 'throughput', file_name: 'faults.csv' },
              timeoutMs: 30_000,
            },
          ),
        patience(),
      );
      if (grant.result?.status !== 201) return unexpected('generate-presigned-url', grant.result);
      const uploadId = grant.result.body.upload_id;
      csvImport.uploadId = uploadId;
      const uploadUrl = new URL(grant.result.body.upload_url);
      const put = await withRetries(async () => {
        const response = await fetch(`${gw()}${uploadUrl.pathname}${uploadUrl.search}`, {
          method: 'PUT',
          headers: { 'content-type': 'text/csv' },
          body: importCsv,
          signal: AbortSignal.timeout(60_000),
        });
        return { status: response.status, headers: response.headers, body: undefined, text: await response.text() };
      }, patience());
      csvImport.putAttempts = put.attempts;
      // 200, or on a retry 409 "already been received": an earlier attempt stored the file, its answer was lost.
      if (!(
        put.result?.status === 200 ||
        (put.result?.status === 409 && put.attempts > 1 && /already been received/.test(put.result.text))
      )) {
        return unexpected('CSV upload PUT', put.result);
      }
      // Processed asynchronously: a crashed instance's upload is taken over after 120 s without progress.
      csvImport.status = await eventually(
        async () => {
          const status = await http<Record<string, unknown>>(
            'GET',
            `${gw()}/v1/workstreams/${throughputWs.id}/performance/uploads/${uploadId}`,
            { headers: { 'x-api-key': importKey }, timeoutMs: 10_000 },
          ).catch(() => undefined);
          return status?.status === 200 && (status.body.state === 'completed' || status.body.state === 'failed') ? status.body : undefined;
        },
        { what: 'the CSV import to end', timeoutMs: 420_000, intervalMs: 1000 },
      );
    })();

    // (f) Line 2: v3 batches (`POST /v3/tasks` with an Idempotency-Key, a callback each) and a 600-unit v4 run
    // that is aborted while platform-runs is crashed, worked by bots of their own.
    const v3 = { sent: 0, accepted: new Map<string, { identifier: string; page: number }[]>(), retried: 0 };
    const v3Stream = (async () => {
      for (let b = 0; !state.faultsDone; b++) {
        v3.sent++;
        const resources = Array.from({ length: V3_BATCH_UNITS }, (_, j) => ({ identifier: `v${b}-${j}`, page: j }));
        const idempotencyKey = `fault-v3-${tag}-${b}`;
        const batch = await withRetries(
          () =>
            http<{ task_id: string; template_id: string; status: string }>('POST', `${gw()}/v3/tasks`, {
              headers: { ...platform.auth, 'idempotency-key': idempotencyKey },
              body: { template_id: line2Id, callback_url: receiver.url(v3Path), resources },
              timeoutMs: 30_000,
            }),
          patience(),
        );
        v3.retried += batch.attempts > 1 ? 1 : 0;
        if (batch.result?.status === 200 && batch.result.body.template_id === line2Id && batch.result.body.status === 'In-Progress')
          v3.accepted.set(batch.result.body.task_id, resources);
        else unexpected(`v3 batch ${b}`, batch.result);
        await pause(V3_BATCH_PAUSE_MS);
      }
    })();
    const abort: { answer?: number; attempts: number; sent: boolean } = { attempts: 0, sent: false };
    const abortRun = async () => {
      abort.sent = true;
      const answer = await withRetries(
        () => http('POST', `${gw()}/v4/runs/${abortRunId}/abort`, { headers: platform.auth, timeoutMs: 30_000 }),
        patience(),
      );
      abort.attempts = answer.attempts;
      // 202; on a retry also 405: the first attempt went through and the run is Processed already.
      if (answer.result?.status === 202 || (answer.result?.status === 405 && answer.attempts > 1)) abort.answer = answer.result.status;
      else unexpected('abort', answer.result);
    };
    let abortDone: Promise<void> = Promise.resolve();
    const line2 = { outcome: new Map<string, 'Completed' | 'Flagged' | 'Aborted'>(), leasesLost: 0, abortRunDone: 0 };
    const line2Output = (identifier: string) => ({ label: `done-${identifier}` });
    const line2Bot = async (worker: Record<string, string>) => {
      while (!state.line2Done) {
        if (!abort.sent && line2.abortRunDone >= ABORT_RUN_UNITS - ABORT_RUN_RESERVE) {
          await pause(250);
          continue;
        }
        const leased = await nextAssignment<{ assignment_id: string; run_id: string; input: { identifier: string } }>(
          worker,
          { kind: 'unit', line_id: line2Id },
          line2,
        );
        if (!leased) continue;
        const { identifier } = leased.input;
        const flag = identifier.endsWith('3');
        const done = await closeAssignment(
          worker,
          leased.assignment_id,
          flag,
          flag ? { reason: UNIT_FLAG_REASON } : { output: line2Output(identifier) },
        );
        const answer = done.result;
        const key = `${leased.run_id}/${identifier}`;
        if (leased.run_id === abortRunId && !line2.outcome.has(key)) line2.abortRunDone++;
        if (answer?.status === 200 || (answer?.status === 409 && /already (completed|flagged)/.test(answer.text)))
          line2.outcome.set(key, flag ? 'Flagged' : 'Completed');
        else if (answer?.status === 409 && /its run was aborted/.test(answer.text)) line2.outcome.set(key, 'Aborted');
        else if (!(answer?.status === 409 && /lease expired/.test(answer.text))) unexpected(`${flag ? 'flag' : 'complete'} ${key}`, answer);
      }
    };
    const line2Bots = line2Workers.map(line2Bot);
    const line2Watch = (async () => {
      while (!state.line2Done) {
        await pause(1000);
        if (!state.line2StreamsDone) continue;
        const rows = await dbQuery<{ n: number }>(
          "select count(*)::int as n from platform_run where line_id = $1 and status <> 'Processed'",
          [line2Id],
        ).catch(() => undefined);
        state.line2Done = rows?.[0].n === 0;
      }
    })();

    // (g) Redeliveries (Delivery API) of task webhooks already delivered, while the faults go on: each one
    // answered 202 must arrive again (same delivery id, same body) with one more success recorded.
    const redeliveries = new Map<string, number>();
    const redeliverStream = (async () => {
      while (!state.faultsDone) {
        await pause(REDELIVER_EVERY_MS);
        const delivered = await dbQuery<{ id: string }>(
          "select id from delivery where workstream_id = $1 and status = 'delivered' order by delivered_at desc limit 10",
          [oversightWs.id],
        ).catch(() => []);
        const pick = delivered.find((d) => !redeliveries.has(d.id));
        if (!pick) continue;
        const answer = await withRetries(
          () =>
            http<{ id: string; status: string }>('POST', `${gw()}/v1/deliveries/${pick.id}/redeliver`, {
              headers: { 'x-api-key': oversightKey },
              timeoutMs: 30_000,
            }),
          patience(),
        );
        if (answer.result?.status === 202 && answer.result.body.id === pick.id && answer.result.body.status === 'pending')
          redeliveries.set(pick.id, answer.attempts);
        else unexpected(`redeliver ${pick.id}`, answer.result);
      }
    })();

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
    // A failed check (or a stream that stopped moving) carries the faults injected so far and the clients'
    // unexpected answers: npm test's digest of failures shows them.
    try {
      const scenarioStarted = Date.now();
      await progressed('start-up');
      for (const [n, app] of FLEET_APPS.entries()) {
        const index = n % instances;
        if (app === 'platform-runs') {
          // A run abort in flight while platform-runs is killed.
          abortDone = abortRun();
          await inject(`SIGKILL ${app}${instances > 1 ? ` #${index}` : ''}, restart (a run abort in flight)`, () =>
            fleet.crash(app, index),
          );
        } else {
          await inject(`SIGKILL ${app}${instances > 1 ? ` #${index}` : ''}, restart`, () => fleet.crash(app, index));
        }
      }
      if (instances > 1) await inject('SIGKILL both instances of performance at once, restart', () => fleet.crashAll('performance'));
      await inject('SIGKILL platform-runs again during its start-up', () => fleet.crashDuringStartup('platform-runs', 0, 1500));
      // Graceful restarts are graceful (two instances): a rolling restart of every instance of every app
      // (SIGTERM, each exits 0), the streams going on through the balancer, must cost no client a 5xx or a
      // connection error (the requests in flight included). Right before the Kafka outage, which a gateway it has
      // just started must live through (docs/operations.md, "Fault tests"). FAULTS_ROLLING_RESTART=0 skips it.
      const rolling = { restarted: 0, slowestStop: '', from: 0, to: 0, redispatched: 0 };
      const rollingOn = instances > 1 && process.env.FAULTS_ROLLING_RESTART !== '0';
      if (rollingOn) {
        await inject('rolling restart (SIGTERM) of every instance, zero 5xx and zero connection errors', async () => {
          rolling.from = Date.now();
          const redispatchedBefore = fleet.redispatched;
          const { stops } = await fleet.rollingRestart();
          rolling.redispatched = fleet.redispatched - redispatchedBefore;
          rolling.restarted = stops.length;
          const slowest = stops.reduce((a, b) => (b.ms > a.ms ? b : a));
          rolling.slowestStop = `${slowest.app} #${slowest.index} ${(slowest.ms / 1000).toFixed(1)} s`;
          rolling.to = Date.now();
        });
      }
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
      const tail: string[] = [];
      const timed = (what: string, done: Promise<unknown>) => done.then(() => tail.push(`${what} ${seconds(recoveryStarted)}`));
      await Promise.all([qualityStream, taskStream, throughputStream, v3Stream, redeliverStream, abortDone]);
      state.line2StreamsDone = true;
      await Promise.all([
        timed('run', Promise.all([...unitBots, runWatch])),
        timed('line 2', Promise.all([...line2Bots, line2Watch])),
        timed('import', importStream),
      ]);
      const finalTask = `state in ('COMPLETED', 'ERROR')`;
      await eventually(
        async () => {
          const [open] = await dbQuery<{ n: number }>(
            `select count(*)::int as n from oversight_task where workstream_id = $1 and not ${finalTask}`,
            [oversightWs.id],
          );
          return open.n === 0;
        },
        { what: 'every oversight task to be final', timeoutMs: 180_000, intervalMs: 1000 },
      );
      state.tasksDone = true;
      await Promise.all(taskBots);
      faultLog.push(['(all faults injected, then: run Processed, tasks final)', `${seconds(recoveryStarted)} (done: ${tail.join(', ')})`]);

      // The audit: straight from the services' tables (see the header), then the receivers and the QC topic.
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
        const differing = sent
          ? Object.keys(sent).filter((field) => field !== 'workstream_id' && asStored[field] !== sent[field])
          : ['(never sent)'];
        return differing.length ? [{ unique_id: row.unique_id, differing }] : [];
      });
      expect(qualityMismatches).toEqual([]);

      // Every stored record under the QC threshold went to the QC topic as stored exactly once (one event
      // id), with the stored values; nothing else did (the workstream samples none). A retried submission
      // whose first attempt went through replaced the record (replace_duplicate defaults to true): that is a
      // new event with outcome "replaced". A request Kafka hands out again after a crash (RPC offsets are
      // committed once a request starts, docs/decisions.md) finds its own write and adds nothing.
      const qc = await auditQcEvents(qualityWs.id, qualityValues, quality.retriedIds);
      expectQcAsStored(qc);

      // (b) The run is Processed with every unit final, as the bots were told.
      const [run] = await dbQuery<{ status: string; processed_at: Date | null; pending_units: number }>(
        'select status, processed_at, pending_units from platform_run where id = $1',
        [runId],
      );
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
      const runCallbacks = await eventually(() => (receiver.on(runPath).length ? receiver.on(runPath) : undefined), {
        what: 'the run callback',
        timeoutMs: 120_000,
      });
      const runDeliveryIds = new Set(runCallbacks.map((r) => String(r.headers['x-svc-delivery-id'])));
      expect(runDeliveryIds.size).toBe(1);
      const callbackBody = JSON.parse(runCallbacks[0].rawBody.toString('utf8')) as { id: string; status: string; units: unknown[] };
      expect(callbackBody).toMatchObject({ id: runId, status: 'Processed' });
      expect(callbackBody.units).toHaveLength(RUN_UNITS);
      // The callback is the run as the API shows it, and byte for byte the body the dispatcher stored.
      expect(callbackBody).toEqual(polled.body);
      const line2RunIds = [abortRunId, ...v3.accepted.keys()];
      const scenarioRunIds = [runId, ...line2RunIds];
      // Every delivery of the scenario ends delivered (the receivers' failures and late answers are retried).
      await eventually(
        async () =>
          (
            await dbQuery<{ n: number }>(
              "select count(*)::int as n from delivery where (workstream_id = $1 or run_id = any($2::text[])) and status <> 'delivered'",
              [oversightWs.id, scenarioRunIds],
            )
          )[0].n === 0,
        { what: 'every delivery to be delivered', timeoutMs: 180_000, intervalMs: 1000 },
      );
      const deliveredBodies = new Map(
        (
          await dbQuery<{ id: string; body: string }>(
            'select id, body from delivery where workstream_id = $1 or run_id = any($2::text[])',
            [oversightWs.id, scenarioRunIds],
          )
        ).map((d) => [d.id, d.body]),
      );
      expect(
        runCallbacks.filter((r) => deliveredBodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8')),
      ).toEqual([]);

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
        return (
          t.state === 'COMPLETED' &&
          (!sent || !isDeepStrictEqual(t.updated_tags, sent.updated_tags) || !isDeepStrictEqual(t.metadata, sent.metadata))
        );
      });
      expect(taskMismatches.map((t) => t.id)).toEqual([]);
      const webhooksOf = () => {
        const byTask = new Map<
          string,
          { deliveryIds: Set<string>; uuids: Set<string>; types: Set<string>; requests: number; badSignatures: number }
        >();
        for (const request of receiver.on(taskPath)) {
          const event = JSON.parse(request.rawBody.toString('utf8')) as { task_id: string; uuid: string; event_type: string };
          const entry = byTask.get(event.task_id) ?? {
            deliveryIds: new Set(),
            uuids: new Set(),
            types: new Set(),
            requests: 0,
            badSignatures: 0,
          };
          entry.deliveryIds.add(String(request.headers['x-svc-delivery-id']));
          entry.uuids.add(event.uuid);
          entry.types.add(event.event_type);
          entry.requests++;
          // Checked as the receiver did on arrival (the 5-minute freshness window is relative to then).
          if (
            !verify(String(request.headers['x-svc-signature']), request.rawBody, oversightKey, {
              now: Math.floor(request.receivedAt / 1000),
            }).ok
          )
            entry.badSignatures++;
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
        const ok =
          hook.deliveryIds.size === 1 && hook.uuids.size === 1 && hook.types.size === 1 && hook.types.has(type) && hook.badSignatures === 0;
        return ok
          ? []
          : [
              {
                ...t,
                deliveryIds: [...hook.deliveryIds],
                uuids: [...hook.uuids],
                types: [...hook.types],
                requests: hook.requests,
                badSignatures: hook.badSignatures,
              },
            ];
      });
      expect(wrong).toEqual([]);
      // Every webhook is byte for byte the body its delivery row holds.
      expect(
        receiver
          .on(taskPath)
          .filter((r) => deliveredBodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8'))
          .map((r) => r.headers['x-svc-delivery-id']),
      ).toEqual([]);
      const deliveries = await dbQuery<{ status: string; n: number }>(
        'select status, count(*)::int as n from delivery where workstream_id = $1 or run_id = any($2::text[]) group by status',
        [oversightWs.id, scenarioRunIds],
      );
      expect(deliveries).toEqual([{ status: 'delivered', n: taskRows.length + 1 + line2RunIds.length }]);

      // (d) Throughput records: every one answered 202 is stored once with what was sent (the duration derived
      // from the start and completion); what a rotated-out key sent was refused and is not stored.
      const throughputRows = await dbQuery<Record<string, unknown>>(
        `select unique_id, use_case_id, task_definition_id, task_id, worker_id, task_started_at, task_completed_at, duration_seconds, task_count, subtask_count, task_metadata
         from performance_throughput_record where workstream_id = $1 and upload_id is null`,
        [throughputWs.id],
      );
      const throughputStored = new Map<string, number>();
      for (const row of throughputRows) throughputStored.set(String(row.unique_id), (throughputStored.get(String(row.unique_id)) ?? 0) + 1);
      expect([...throughput.accepted].filter((id) => throughputStored.get(id) !== 1)).toEqual([]);
      expect([...throughputStored].filter(([id, n]) => n !== 1 || !throughput.bodies.has(id))).toEqual([]);
      expect([...throughput.refused].filter((id) => throughputStored.has(id))).toEqual([]);
      const throughputMismatches = throughputRows.flatMap((row) => {
        const sent = throughput.bodies.get(String(row.unique_id))!;
        const expected: Record<string, unknown> = {
          ...sent,
          duration_seconds: (Date.parse(String(sent.task_completed_at)) - Date.parse(String(sent.task_started_at))) / 1000,
        };
        const asStored: Record<string, unknown> = {
          ...row,
          task_started_at: (row.task_started_at as Date).toISOString(),
          task_completed_at: (row.task_completed_at as Date).toISOString(),
        };
        const differing = Object.keys(expected).filter((field) => !isDeepStrictEqual(asStored[field], expected[field]));
        return differing.length ? [{ unique_id: row.unique_id, differing }] : [];
      });
      expect(throughputMismatches).toEqual([]);
      expect(throughput.rotations + throughput.rotationsLost).toBeGreaterThan(0);

      // (e) The CSV import: completed, every counter exact, every row stored once with the values of the file.
      expect(csvImport.status).toMatchObject({
        state: 'completed',
        failure: null,
        rows_processed: IMPORT_ROWS,
        rows_accepted: IMPORT_ROWS,
        rows_stored: IMPORT_ROWS,
        rows_replaced: 0,
        rows_duplicates_ignored: 0,
        rows_rejected: 0,
      });
      const importedRows = await dbQuery<Record<string, unknown>>(
        `select unique_id, task_id, worker_id, task_completed_at, task_count, use_case_id, task_definition_id, task_metadata, task_started_at, duration_seconds
         from performance_throughput_record where workstream_id = $1 and upload_id = $2`,
        [throughputWs.id, csvImport.uploadId],
      );
      expect(importedRows).toHaveLength(IMPORT_ROWS);
      expect(new Set(importedRows.map((row) => row.unique_id)).size).toBe(IMPORT_ROWS);
      const importMismatches = importedRows.filter((row) => {
        const r = Number(String(row.unique_id).slice(`${tag}-csv`.length));
        const sent = importRow(r);
        return !(
          row.unique_id === sent.unique_id &&
          row.task_id === sent.task_id &&
          row.worker_id === sent.worker_id &&
          (row.task_completed_at as Date).toISOString() === sent.task_completed_at &&
          row.task_count === sent.task_count &&
          row.use_case_id === 'uc-t' &&
          row.task_definition_id === 'td-t' &&
          isDeepStrictEqual(row.task_metadata, { row: sent.row }) &&
          row.task_started_at === null &&
          row.duration_seconds === null
        );
      });
      expect(importMismatches.map((row) => row.unique_id)).toEqual([]);

      // (f) Line 2: exactly the accepted v3 batches and the aborted run (Idempotency-Key), all Processed; every
      // unit as its bot was told, or Aborted (empty output) in the aborted run.
      const line2Runs = await dbQuery<{ id: string; status: string }>('select id, status from platform_run where line_id = $1', [line2Id]);
      expect(line2Runs.map((r) => r.id).sort()).toEqual([...line2RunIds].sort());
      expect(line2Runs.filter((r) => r.status !== 'Processed')).toEqual([]);
      const line2Units = await dbQuery<{ run_id: string; identifier: string; status: string; output: unknown; flag_reason: string | null }>(
        "select run_id, input->>'identifier' as identifier, status, output, flag_reason from platform_unit where line_id = $1",
        [line2Id],
      );
      expect(line2Units).toHaveLength(ABORT_RUN_UNITS + v3.accepted.size * V3_BATCH_UNITS);
      const emptyOutput = (output: unknown) => output === null || isDeepStrictEqual(output, {});
      const line2Mismatches = line2Units.filter((u) => {
        const told = line2.outcome.get(`${u.run_id}/${u.identifier}`);
        if (u.status === 'Aborted') return u.run_id !== abortRunId || (told !== undefined && told !== 'Aborted') || !emptyOutput(u.output);
        if (told !== undefined && told !== u.status) return true;
        return u.status === 'Completed'
          ? !isDeepStrictEqual(u.output, line2Output(u.identifier)) || u.flag_reason !== null
          : u.status !== 'Flagged' || u.flag_reason !== UNIT_FLAG_REASON;
      });
      expect(line2Mismatches).toEqual([]);
      const abortedUnits = line2Units.filter((u) => u.status === 'Aborted').length;
      const abortAsExpected = abort.answer === 202 || (abort.answer === 405 && abort.attempts > 1);
      const abortProblems = problems.filter((p) => p.startsWith('abort')).join('; ');
      expect(abortAsExpected || `abort answered ${abort.answer ?? 'nothing'} after ${abort.attempts} attempt(s): ${abortProblems}`).toBe(
        true,
      );
      if (abort.answer === 202) expect(abortedUnits).toBeGreaterThan(0);
      // The aborted run's callback is the run as the API shows it, once (one delivery id).
      const abortCallbacks = receiver.on(abortPath);
      expect(new Set(abortCallbacks.map((r) => String(r.headers['x-svc-delivery-id']))).size).toBe(1);
      const abortPolled = await http('GET', `${gw()}/v4/runs/${abortRunId}`, { headers: platform.auth });
      expect(JSON.parse(abortCallbacks[0].rawBody.toString('utf8'))).toEqual(abortPolled.body);
      // Each v3 batch's callback (one delivery id) holds its resources as the bots left them: the input, the
      // output of a Completed unit, extra.status; the same resources GET /v3/tasks shows.
      const v3Problems: unknown[] = [];
      for (const [taskId, resources] of v3.accepted) {
        const callbacks = receiver
          .on(v3Path)
          .filter((r) => (JSON.parse(r.rawBody.toString('utf8')) as { task_id: string }).task_id === taskId);
        const callback = callbacks.length ? (JSON.parse(callbacks[0].rawBody.toString('utf8')) as Record<string, unknown>) : undefined;
        const polledBatch = await http<Record<string, unknown>>('GET', `${gw()}/v3/tasks/${taskId}`, { headers: platform.auth });
        const byIdentifier = new Map(line2Units.filter((u) => u.run_id === taskId).map((u) => [u.identifier, u]));
        const expectedResources = resources.map((input) => {
          const unit = byIdentifier.get(input.identifier)!;
          return { ...input, ...(unit.status === 'Completed' ? line2Output(input.identifier) : {}), extra: { status: unit.status } };
        });
        const ok =
          callback !== undefined &&
          new Set(callbacks.map((r) => String(r.headers['x-svc-delivery-id']))).size === 1 &&
          callback.template_id === line2Id &&
          callback.status === 'Completed' &&
          /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/.test(String(callback.completed_at)) &&
          isDeepStrictEqual(callback.resources, expectedResources) &&
          polledBatch.status === 200 &&
          polledBatch.body.status === 'Completed' &&
          isDeepStrictEqual(polledBatch.body.resources, expectedResources);
        if (!ok) v3Problems.push({ taskId, callbacks: callbacks.length, callback, polled: polledBatch.body, expectedResources });
      }
      expect(v3Problems).toEqual([]);
      for (const path of [v3Path, abortPath]) {
        expect(
          receiver.on(path).filter((r) => deliveredBodies.get(String(r.headers['x-svc-delivery-id'])) !== r.rawBody.toString('utf8'))
            .length,
        ).toBe(0);
      }

      // (g) and the flaky receivers: exactly one success recorded per delivery round (one round, plus one per
      // redelivery answered 202; a retried redelivery request may have started one more; a request's replay
      // by the next owner of its partition, after a dispatcher was killed before committing its offset, is
      // applied once: docs/decisions.md, RPC topics), every redelivered delivery arrived again; failed and
      // late attempts happened and were retried.
      const attemptsByDelivery = await dbQuery<{ id: string; ok: number; failed: number; errors: number }>(
        `select d.id, count(a.number) filter (where a.status_code between 200 and 299)::int as ok,
              count(a.number) filter (where a.status_code >= 300)::int as failed,
              count(a.number) filter (where a.status_code is null)::int as errors
         from delivery d left join delivery_attempt a on a.delivery_id = d.id
        where d.workstream_id = $1 or d.run_id = any($2::text[]) group by d.id`,
        [oversightWs.id, scenarioRunIds],
      );
      const successMismatches = attemptsByDelivery.filter((d) => {
        const asked = redeliveries.get(d.id);
        return asked === undefined ? d.ok !== 1 : d.ok < 2 || d.ok > 1 + asked;
      });
      expect(successMismatches).toEqual([]);
      const receivedIds = receiver.requests.map((r) => String(r.headers['x-svc-delivery-id']));
      expect([...redeliveries.keys()].filter((id) => receivedIds.filter((received) => received === id).length < 2)).toEqual([]);
      const failedAttempts = attemptsByDelivery.reduce((sum, d) => sum + d.failed, 0);
      const erroredAttempts = attemptsByDelivery.reduce((sum, d) => sum + d.errors, 0);
      expect(flaky.stats.failed).toBeGreaterThan(0);
      expect(flaky.stats.late).toBeGreaterThan(0);
      expect(failedAttempts).toBeGreaterThan(0);
      expect(problems).toEqual([]);
      const rollingFailures = rollingOn ? failedAttemptsBetween(rolling.from, rolling.to) : [];
      if (rollingOn) {
        expect(rolling.restarted).toBe(FLEET_APPS.length * instances);
        expect(rollingFailures).toEqual([]);
      }

      const repeats = (requests: number, unique: number) =>
        `${requests} requests for ${unique} deliveries (${requests - unique} more: retries after a 500 or late answer, redeliveries, documented crash repeats)`;
      const hookRequests = [...webhooks.values()].reduce((sum, w) => sum + w.requests, 0);
      faultLog.push([
        `receivers: ${LATE_ANSWER_MS / 1000} s late answers and 500s throughout (20 % 500, 10 % late, of each delivery's first 2 attempts)`,
        `${flaky.stats.failed} answered 500, ${flaky.stats.late} late: all retried, every delivery delivered`,
      ]);
      faultLog.push(['(scenario total)', seconds(scenarioStarted)]);
      const summary: Counts = {
        'quality records sent': quality.sent,
        'quality records answered 202': quality.accepted.size,
        'quality records needing retries': quality.retried,
        'quality rows stored (all exactly once, values as sent)': qualityRows.length,
        'QC events (one stored per record under the threshold)': `${qc.shouldQc.length} records, ${qc.messages} messages`,
        'QC replaced events without a client retry (redelivered requests)': qc.replacedWithoutRetry.length,
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
        'throughput records sent / answered 202': `${throughput.sent} / ${throughput.accepted.size}`,
        'throughput rows stored (all exactly once, values as sent)': throughputRows.length,
        'throughput records needing retries': throughput.retried,
        'API key rotations answered 201 (then old key 401, new key 202 on every gateway)': throughput.rotations,
        'API key rotations whose answer was lost (known limit: new key unknown, a fresh one issued)': throughput.rotationsLost,
        'records sent with a rotated-out key (401, none stored)': throughput.refused.size,
        'CSV import rows processed / stored (each once, values as in the file)': `${String(csvImport.status?.rows_processed)} / ${importedRows.length}`,
        'CSV upload PUT attempts': csvImport.putAttempts,
        'v3 batches sent / answered 200 (each Completed, callback as the units)': `${v3.sent} / ${v3.accepted.size}`,
        'aborted run: abort answer, units Aborted / Completed / Flagged': `${abort.answer} after ${abort.attempts} attempt(s), ${abortedUnits} / ${line2Units.filter((u) => u.run_id === abortRunId && u.status === 'Completed').length} / ${line2Units.filter((u) => u.run_id === abortRunId && u.status === 'Flagged').length}`,
        'line 2 `next` calls retried (a lease may be orphaned)': line2.leasesLost,
        'redeliveries answered 202 (each received again, one more success)': redeliveries.size,
        'receiver answers 500 / late (after the 5 s timeout) / 200': `${flaky.stats.failed} / ${flaky.stats.late} / ${flaky.stats.ok}`,
        'delivery attempts failed (status) / no answer (timeout, reset) in the DB': `${failedAttempts} / ${erroredAttempts}`,
        'deliveries with exactly one success per round (DB)': attemptsByDelivery.length,
        'connections the balancer sent on to another gateway after a refused connect': fleet.redispatched,
        ...(rollingOn
          ? {
              'rolling restart: instances restarted (each exit 0) / client attempts failed (5xx, connection)': `${rolling.restarted} / ${rollingFailures.length}`,
              'rolling restart: slowest graceful stop': rolling.slowestStop,
              'rolling restart: connections the balancer sent on after a refused connect': rolling.redispatched,
            }
          : {}),
      };
      console.log(
        `Fault suite, ${instances} instance(s) of every app\n` +
          [
            ...faultLog.map(([name, took]) => `  ${name.padEnd(51)} ${took}`),
            ...Object.entries(summary).map(([label, value]) => `  ${label.padEnd(51)} ${value}`),
          ].join('\n'),
      );
      writeFaultReport(join(REPORT_DIR, `report-${instances}.md`), `${instances} instance(s) of every app`, faultLog, summary);
    } catch (error) {
      throw withScenarioContext(error, faultLog, problems);
    }
  }, 900_000);
});
