/**
 * `npm run bench:performance` (not part of npm test): brings up the stack on the TEST_* ports, then
 *  1. sustained task_reviewed submissions from a separate load-generator process (autocannon), with p50/p99
 *     latency, and every 202 checked against the rows persisted in PostgreSQL (zero lost);
 *  2. the same load against a bare Node HTTP server answering 202 (the baseline of this machine);
 *  3. a 1,000,000-row quality CSV through a presigned URL: upload time and import rows/s.
 * Settings: BENCH_SECONDS (default 20), BENCH_CONNECTIONS (default 32), BENCH_CSV_ROWS (default 1000000).
 */
import { fork, spawn } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from 'pg';

// Compiled to .cache/bench/, so paths are taken from the repository root.
const ROOT = join(__dirname, '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { startStack } = require(join(ROOT, 'tools', 'stack', 'stack')) as { startStack: (profile: unknown, options: object) => Promise<Stack> };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { profiles } = require(join(ROOT, 'tools', 'stack', 'profiles')) as { profiles: Record<string, unknown> };

interface Stack {
  gatewayUrl: string;
  env: Record<string, string>;
  stop(): Promise<void>;
}

interface LoadResult {
  requests: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  status2xx: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  /** unique_ids of the requests answered 2xx. */
  acknowledged: string[];
}

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 1_000_000);
const ADMIN_TOKEN = 'bench-admin-token-0123456789abcdef';

async function json<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const response = await fetch(url, { method, headers: { 'content-type': 'application/json', ...headers }, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as T;
}

/** Runs autocannon in its own process (the load generator is never the process under test). */
async function load(url: string, headers: Record<string, string>, body: string): Promise<LoadResult> {
  const child = fork(join(__dirname, 'load-generator.js'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.send({ url, headers, body, connections: CONNECTIONS, duration: SECONDS });
  const [result] = (await once(child, 'message')) as [LoadResult];
  return result;
}

/** A bare node:http server in its own process, answering 202 to every request after reading its body. */
async function startBaseline(port: number): Promise<() => void> {
  const code = `require('node:http').createServer((q, s) => { q.resume(); q.on('end', () => { s.writeHead(202, {'content-type': 'application/json'}); s.end('{"message":"Record stored"}'); }); }).listen(${port}, '127.0.0.1', () => process.send('up'));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  await once(child, 'message');
  return () => child.kill('SIGTERM');
}

async function* csvRows(rows: number): AsyncGenerator<string> {
  yield 'use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,review_type,errors.missing_box,errors.wrong_label,metadata.shift\n';
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk += `uc-1,td-${(i % 2) + 1},row-${i},worker-${i % 500}@example.com,2024-05-${String((i % 28) + 1).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00Z,${((i * 7919) % 1001) / 1000},QA,${i % 3},${i % 5},day\n`;
    if (chunk.length >= 256 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}

async function main(): Promise<void> {
  const profile = profiles.test;
  const stack = await startStack(profile, { quietApps: true, extraEnv: { ADMIN_TOKEN, LOG_LEVEL: 'warn', RATE_LIMIT_V1_PER_MINUTE: '0', RATE_LIMIT_V4_PER_MINUTE: '0', RATE_LIMIT_V3_PER_MINUTE: '0', RATE_LIMIT_WORK_PER_MINUTE: '0', RATE_LIMIT_ADMIN_PER_MINUTE: '0', KAFKAJS_NO_PARTITIONER_WARNING: '1' } });
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const account = await json<{ id: string }>('POST', `${stack.gatewayUrl}/admin/v1/accounts`, { name: 'Bench' }, admin);
    const ws = await json<{ id: string }>('POST', `${stack.gatewayUrl}/admin/v1/workstreams`, {
      account_id: account.id,
      name: 'Bench',
      use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }],
    }, admin);
    const { key } = await json<{ key: string }>('POST', `${stack.gatewayUrl}/admin/v1/workstreams/${ws.id}/api-keys`, {}, admin);
    const body = JSON.stringify({
      workstream_id: ws.id,
      use_case_id: 'uc-1',
      task_definition_id: 'td-1',
      worker_id: 'ann@example.com',
      review_completed_at: '2024-05-01T12:00:00Z',
      review_score: 0.9,
      review_type: 'QA',
      errors: { missing_box: 1 },
      unique_id: '__ID__',
    });
    const headers = { 'content-type': 'application/json', 'x-api-key': key };
    // Warm-up (connections, JIT, caches), not counted.
    await json('POST', `${stack.gatewayUrl}/v1/workstreams/${ws.id}/task_reviewed`, JSON.parse(body.replace('__ID__', 'warm-up')), { 'x-api-key': key });

    console.log(`\n== task_reviewed: ${CONNECTIONS} connections for ${SECONDS}s`);
    const { acknowledged, ...gateway } = await load(`${stack.gatewayUrl}/v1/workstreams/${ws.id}/task_reviewed`, headers, body);
    // Every 202 must name a committed row (requests cut off at the end may also have committed: not counted).
    const persisted = Number(
      (await db.query('select count(*)::int as n from performance_quality_record where workstream_id = $1 and unique_id = any($2::text[])', [ws.id, acknowledged])).rows[0].n,
    );
    console.log(JSON.stringify({ ...gateway, acknowledged: acknowledged.length, persisted, lost: acknowledged.length - persisted }));

    console.log(`\n== baseline: bare node:http server answering 202, same load`);
    const port = Number(new URL(stack.gatewayUrl).port) + 7;
    const stopBaseline = await startBaseline(port);
    const { acknowledged: _ids, ...baseline } = await load(`http://127.0.0.1:${port}/v1/workstreams/${ws.id}/task_reviewed`, headers, body);
    stopBaseline();
    console.log(JSON.stringify(baseline));

    console.log(`\n== CSV import: ${CSV_ROWS.toLocaleString('en')} rows`);
    const dir = join(ROOT, '.cache', 'bench');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `quality-${CSV_ROWS}.csv`);
    const out = createWriteStream(file);
    for await (const chunk of csvRows(CSV_ROWS)) if (!out.write(chunk)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    const bytes = statSync(file).size;
    const presigned = await json<{ upload_url: string; upload_id: string }>('POST', `${stack.gatewayUrl}/v1/workstreams/${ws.id}/performance/generate-presigned-url`, { kind: 'quality' }, { 'x-api-key': key });
    const putStarted = Date.now();
    const put = await fetch(presigned.upload_url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: createReadStream(file) as unknown as string, duplex: 'half' } as RequestInit);
    if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
    const uploadSeconds = (Date.now() - putStarted) / 1000;
    let upload: { state: string; rows_accepted: number; rows_rejected: number; started_at: string; finished_at: string; failure: string | null };
    for (;;) {
      upload = await json('GET', `${stack.gatewayUrl}/v1/workstreams/${ws.id}/performance/uploads/${presigned.upload_id}`, undefined, { 'x-api-key': key });
      if (upload.state === 'completed' || upload.state === 'failed') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    const totalSeconds = (Date.now() - putStarted) / 1000;
    const importSeconds = (Date.parse(upload.finished_at) - Date.parse(upload.started_at)) / 1000;
    const csvRowsInDb = Number((await db.query('select count(*)::int as n from performance_quality_record where upload_id = $1', [presigned.upload_id])).rows[0].n);
    console.log(
      JSON.stringify({
        state: upload.state,
        failure: upload.failure,
        rows: CSV_ROWS,
        bytes,
        rows_accepted: upload.rows_accepted,
        rows_rejected: upload.rows_rejected,
        rows_in_db: csvRowsInDb,
        upload_seconds: uploadSeconds,
        import_seconds: importSeconds,
        import_rows_per_second: Math.round(CSV_ROWS / importSeconds),
        end_to_end_seconds: totalSeconds,
        end_to_end_rows_per_second: Math.round(CSV_ROWS / totalSeconds),
      }),
    );

    console.log('\n== summary');
    console.log(`task_reviewed via gateway: ${gateway.rps.toFixed(0)} req/s, p50 ${gateway.p50} ms, p99 ${gateway.p99} ms, ${gateway.status2xx} x 202, ${persisted} of them persisted, lost ${acknowledged.length - persisted}, non-2xx ${gateway.non2xx}, errors ${gateway.errors}`);
    console.log(`bare node:http baseline:   ${baseline.rps.toFixed(0)} req/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`);
    console.log(`CSV import (${CSV_ROWS} rows, ${(bytes / 1e6).toFixed(0)} MB): upload ${uploadSeconds.toFixed(1)} s, import ${importSeconds.toFixed(1)} s = ${Math.round(CSV_ROWS / importSeconds)} rows/s`);
    if (acknowledged.length !== gateway.status2xx || acknowledged.length !== persisted || upload.state !== 'completed' || csvRowsInDb !== CSV_ROWS) process.exitCode = 1;
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
