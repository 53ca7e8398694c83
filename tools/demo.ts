/**
 * `npm run demo [-- --auto]`: provisions a demo account on a running Workline (npm start) and gives work to
 * the console (docs/console.md). Gateway: WORKLINE_URL (default http://127.0.0.1:3000); admin token:
 * ADMIN_TOKEN, else .cache/run/admin-token (written by npm start). With --auto, bot workers finish every
 * unit and task, and the demo exits once every callback reached its local receiver (exit 1 otherwise).
 * It talks to the gateway through the typed client (libs/client).
 */
import { type Credentials, createWorklineClient, type WorklineClient } from '@workline/client';
import { DEFAULT_GATEWAY_PORT } from '@workline/config';
import { errorMessage } from '@workline/contracts';
import crypto from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { adminTokenFile } from './stack/deps';

const gateway = (process.env.WORKLINE_URL || `http://127.0.0.1:${DEFAULT_GATEWAY_PORT}`).replace(/\/+$/, '');
// `npm run demo --auto` (without --) reaches us as npm_config_auto.
const auto = process.argv.includes('--auto') || process.env.npm_config_auto === 'true';
const UNITS = 3;
const TASKS = 2;
const WAIT_MS = Number(process.env.DEMO_WAIT_MS || 60000);
/** A 32x32 checkerboard PNG: real image bytes that a browser renders. */
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAACAAAAAgCAIAAAD8GO2jAAAAPklEQVR4nGP4cMIGK7LOv4EVkaqeYdSCUQuGgAXUMgiX+lELRi0YChbQPKONWjBqwRCwgOYZ' +
    'bdSCUQsGvwUAb7fsWyib/owAAAAASUVORK5CYII=',
  'base64',
);

function adminToken(): string {
  if (process.env.ADMIN_TOKEN) return process.env.ADMIN_TOKEN;
  if (fs.existsSync(adminTokenFile)) return fs.readFileSync(adminTokenFile, 'utf8').trim();
  throw new Error('no admin token: set ADMIN_TOKEN, or start the stack with npm start (it writes .cache/run/admin-token)');
}

/** A client of the gateway with these credentials ({apiKey}, {basic: {username, password}}, {bearer}). */
const client = (credentials: Credentials = {}): WorklineClient => createWorklineClient(gateway, credentials);

/** A typed client's answer (openapi-fetch). */
interface Answer<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The answer's data; an error answer stops the demo, saying which call it was. */
function ok<T>({ data, error, response }: Answer<T>): T {
  if (!response.ok)
    throw new Error(
      `${response.url ? `${new URL(response.url).pathname}` : ''} answered ${response.status}: ${JSON.stringify(error)}`.trim(),
    );
  return data as T;
}

/** The same, naming the method (openapi-fetch's Response does not carry it). */
function okCall<T>(method: string, result: Answer<T>): T {
  try {
    return ok(result);
  } catch (error) {
    throw new Error(`${method} ${errorMessage(error)}`);
  }
}

interface Received {
  path: string | undefined;
  headers: IncomingHttpHeaders;
  json: { event_type?: string; id?: string; status?: string } | null;
}

interface Receiver {
  server: http.Server;
  received: Received[];
  url: string;
}

/** A local callback receiver on loopback: records and prints every request. */
function startReceiver(): Promise<Receiver> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: Received['json'] = null;
      try {
        json = JSON.parse(body) as Received['json'];
      } catch {
        json = null;
      }
      received.push({ path: req.url, headers: req.headers, json });
      const what = json ? json.event_type || `run ${json.id} ${json.status}` : body.slice(0, 80);
      console.log(`  receiver <- POST ${req.url}: ${what}${req.headers['x-svc-signature'] ? ' (signed)' : ''}`);
      res.writeHead(200).end('ok');
    });
  });
  return new Promise((resolve) =>
    server.listen(Number(process.env.DEMO_RECEIVER_PORT || 0), '127.0.0.1', () =>
      resolve({ server, received, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` }),
    ),
  );
}

async function provision(receiverUrl: string) {
  const admin = client({ bearer: adminToken() });
  const tag = crypto.randomBytes(3).toString('hex');
  const account = okCall('POST', await admin.POST('/admin/v1/accounts', { body: { name: `Demo ${tag}` } }));
  const line = okCall(
    'POST',
    await admin.POST('/admin/v1/accounts/{account_id}/lines', {
      params: { path: { account_id: account.id } },
      body: { name: 'Demo line' },
    }),
  );
  const workstream = okCall(
    'POST',
    await admin.POST('/admin/v1/workstreams', {
      body: { account_id: account.id, name: `Demo ${tag}`, use_cases: [{ id: 'demo', task_definition_ids: ['label'] }] },
    }),
  );
  const forWorkstream = { params: { path: { workstream_id: workstream.id } } };
  const { key } = okCall('POST', await admin.POST('/admin/v1/workstreams/{workstream_id}/api-keys', { ...forWorkstream, body: {} }));
  const configuration = okCall(
    'POST',
    await admin.POST('/admin/v1/workstreams/{workstream_id}/configurations', {
      ...forWorkstream,
      body: { name: 'Demo', extended_events: true },
    }),
  );
  const worker = okCall('POST', await admin.POST('/admin/v1/workers', { body: { email: `demo.${tag}@example.com`, name: 'Demo worker' } }));
  const platform = client({ basic: { username: account.username, password: account.password } });
  const api = client({ apiKey: key });

  const units = Array.from({ length: UNITS }, (_, i) => ({
    identifier: `demo-${i + 1}`,
    text: `Sentence number ${i + 1}`,
    language: 'en',
  }));
  const run = okCall('POST', await platform.POST('/v4/runs', { body: { line_id: line.id, callback_url: `${receiverUrl}/run`, units } }));
  const tasks: string[] = [];
  for (let i = 0; i < TASKS; i++) {
    const grant = okCall('POST', await api.POST('/v1/signed-url', { body: { configuration_id: configuration.id } }));
    // A presigned URL is used as it was handed out: the signature is in its query.
    const upload = await fetch(grant.media_upload_url, { method: 'PUT', headers: { 'content-type': 'image/png' }, body: PNG });
    if (!upload.ok) throw new Error(`PUT ${grant.media_upload_url} answered ${upload.status}: ${await upload.text()}`);
    const task = okCall(
      'POST',
      await api.POST('/v1/tasks', {
        body: {
          media_key: grant.media_key,
          configuration_id: configuration.id,
          callback_url: `${receiverUrl}/task`,
          existing_tags: [{ value: 'pattern', confidence_score: 0.4 }],
        },
      }),
    );
    tasks.push(task.task_id);
  }
  await performanceRecords(api, workstream.id);
  return { account, line, workstream, key, configuration, worker, platform, run, tasks };
}

type Demo = Awaited<ReturnType<typeof provision>>;

const DAYS = 7;

/** Quality reviews and completed-task records for the last DAYS days, so the console's report charts have data. */
async function performanceRecords(api: WorklineClient, workstreamId: string): Promise<void> {
  const params = { path: { workstream_id: workstreamId } };
  const today = Date.parse(new Date().toISOString().slice(0, 10));
  for (let day = 0; day < DAYS; day++) {
    const at = (hour: number) => new Date(today - (DAYS - 1 - day) * 86400000 + hour * 3600000).toISOString();
    for (const [i, worker] of ['ann@example.com', 'bob@example.com'].entries()) {
      okCall(
        'POST',
        await api.POST('/v1/workstreams/{workstream_id}/task_reviewed', {
          params,
          body: {
            workstream_id: workstreamId,
            use_case_id: 'demo',
            task_definition_id: 'label',
            worker_id: worker,
            review_completed_at: at(9 + i),
            review_score: Math.round(55 + ((day * 7 + i * 3) % 9) * 5) / 100,
          },
        }),
      );
    }
    okCall(
      'POST',
      await api.POST('/v1/workstreams/{workstream_id}/task_completed', {
        params,
        body: {
          worker_id: 'ann@example.com',
          task_completed_at: at(12),
          task_count: 3 + ((day * 5) % 7),
          duration_seconds: 1800 + day * 300,
        },
      }),
    );
  }
}

/** Bot workers: complete every unit of the demo line and every demo task (other tasks are left alone). */
async function finishAll(demo: Demo): Promise<void> {
  const bot = client({ bearer: demo.worker.token });
  const assignment = (assignmentId: string) => ({ params: { path: { id: assignmentId } } });
  for (;;) {
    const unit = okCall('POST', await bot.POST('/workforce/v1/assignments/next', { body: { kind: 'unit', line_id: demo.line.id } }));
    if (!unit) break;
    if (unit.kind !== 'unit') throw new Error(`asked for a unit, got a ${unit.kind}`);
    okCall(
      'POST',
      await bot.POST('/workforce/v1/assignments/{id}/complete', {
        ...assignment(unit.assignment_id),
        body: { output: { label: `bot-${unit.input.identifier}` } },
      }),
    );
    console.log(`  bot completed unit ${unit.input.identifier}`);
  }
  const open = new Set(demo.tasks);
  while (open.size) {
    const task = okCall('POST', await bot.POST('/workforce/v1/assignments/next', { body: { kind: 'task' } }));
    if (!task) throw new Error(`no task waiting, yet ${open.size} demo task(s) are not done`);
    // A task of someone else keeps its lease until it expires, and is then offered again: not ours to answer.
    if (task.kind !== 'task' || !open.has(task.task_id)) continue;
    okCall(
      'POST',
      await bot.POST('/workforce/v1/assignments/{id}/complete', {
        ...assignment(task.assignment_id),
        body: { updated_tags: [{ value: 'checkerboard', confidence_score: 0.9 }] },
      }),
    );
    open.delete(task.task_id);
    console.log(`  bot completed task ${task.task_id}`);
  }
}

async function waitFor<T>(what: string, check: () => T | Promise<T>): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${WAIT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

async function runDemo(): Promise<void> {
  const anonymous = client();
  await anonymous
    .GET('/health')
    .then((result) => okCall('GET', result))
    .catch((error: unknown) => {
      throw new Error(`Workline is not answering on ${gateway} (start it with npm start, or set WORKLINE_URL): ${errorMessage(error)}`);
    });
  const receiver = await startReceiver();
  const demo = await provision(receiver.url);
  console.log(`
Workline demo on ${gateway}
  Console:            ${gateway}/console
  Worker token:       ${demo.worker.token}      (Worker tab; line id ${demo.line.id})
  Operator (account): ${demo.account.username} / ${demo.account.password}      (Operator tab: runs, deliveries)
  Operator (admin):   the admin token (ADMIN_TOKEN, or .cache/run/admin-token)      (Operator tab: tasks, reports)
  Workstream:         ${demo.workstream.id} (tasks; quality and throughput records for the last ${DAYS} days)
  Run:                ${demo.run.id} (${UNITS} units, callback to ${receiver.url}/run)
  Tasks:              ${demo.tasks.join(', ')} (webhooks to ${receiver.url}/task)
  API key:            ${demo.key}   (workstream ${demo.workstream.id}, configuration ${demo.configuration.id})
  Callback receiver:  ${receiver.url}
`);
  if (!auto) {
    console.log('Waiting for callbacks; press Ctrl-C to stop.');
    process.on('SIGINT', () => receiver.server.close(() => process.exit(0)));
    return;
  }
  await finishAll(demo);
  const expected = 1 + TASKS;
  await waitFor(`${expected} callbacks`, () => receiver.received.length >= expected);
  const run = okCall('GET', await demo.platform.GET('/v4/runs/{id}', { params: { path: { id: demo.run.id } } }));
  const done = run.units.filter((unit) => unit.meta && unit.meta.status === 'Completed').length;
  console.log(`\nReceiver got ${receiver.received.length} callback(s):`);
  for (const request of receiver.received) console.log(`  ${request.path}: ${JSON.stringify(request.json)}`);
  console.log(`\nRun ${run.id}: ${run.status}, ${done}/${UNITS} units done; callbacks received: ${receiver.received.length}/${expected}`);
  receiver.server.close();
  if (run.status !== 'Processed' || done !== UNITS || receiver.received.length !== expected) process.exit(1);
  console.log('Demo complete: every unit done and every callback received.');
}

/** `node tools/bootstrap.js demo [--auto]` (npm run demo). */
export const main = (): Promise<void> =>
  runDemo().catch((error: unknown) => {
    console.error(`demo failed: ${errorMessage(error)}`);
    process.exit(1);
  });
