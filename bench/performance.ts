/**
 * `npm run bench:performance` (not part of npm test): brings up the bench stack (BENCH_* ports), then
 *  1. sustained task_reviewed submissions from a separate load-generator process (autocannon), with p50/p99
 *     latency, and every 202 checked against the rows persisted in PostgreSQL (zero lost);
 *  2. the same load against a bare Fastify server answering 202 (the baseline of this machine);
 *  3. a 1,000,000-row quality CSV through a presigned URL: upload time and import rows/s.
 * Settings: BENCH_SECONDS (default 20), BENCH_CONNECTIONS (default 32), BENCH_CSV_ROWS (default 1000000).
 */
import { createReadStream, createWriteStream, mkdirSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBaselineServer } from './lib/baseline';
import { call, expectStatus, newWorkstream, ROOT, startBenchStack } from './lib/common';
import { qualityBaselineRoute, qualityLoad } from './lib/quality';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 1_000_000);

async function json<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const u = new URL(url);
  return (await expectStatus(call(u.origin, method, `${u.pathname}${u.search}`, headers, body), method === 'GET' ? 200 : 201, `${method} ${u.pathname}`)) as T;
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
  const stack = await startBenchStack();
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    const { workstreamId, key } = await newWorkstream(stack.gatewayUrl);
    const ws = { id: workstreamId };
    // Warm-up (connections, JIT, caches), not counted.
    await qualityLoad(stack.gatewayUrl, ws.id, key, 4, 2);

    console.log(`\n== task_reviewed: ${CONNECTIONS} connections for ${SECONDS}s`);
    const { acknowledged: _acknowledged, ...gateway } = await qualityLoad(stack.gatewayUrl, ws.id, key, CONNECTIONS, SECONDS, db);
    const { persisted, lost } = gateway;
    console.log(JSON.stringify(gateway));

    console.log(`\n== baseline: bare Fastify server answering 202, same load`);
    const baselineServer = await startBaselineServer([qualityBaselineRoute]);
    const { acknowledged: _ids, ...baseline } = await qualityLoad(baselineServer.base, ws.id, key, CONNECTIONS, SECONDS);
    baselineServer.stop();
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
    console.log(`task_reviewed via gateway: ${gateway.perSecond.toFixed(0)} req/s, p50 ${gateway.p50} ms, p99 ${gateway.p99} ms, ${gateway.count} x 202, ${persisted} of them persisted, lost ${lost}, failed ${gateway.failed}`);
    console.log(`bare Fastify baseline:     ${baseline.perSecond.toFixed(0)} req/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`);
    console.log(`CSV import (${CSV_ROWS} rows, ${(bytes / 1e6).toFixed(0)} MB): upload ${uploadSeconds.toFixed(1)} s, import ${importSeconds.toFixed(1)} s = ${Math.round(CSV_ROWS / importSeconds)} rows/s`);
    if (lost !== 0 || upload.state !== 'completed' || csvRowsInDb !== CSV_ROWS) process.exitCode = 1;
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
