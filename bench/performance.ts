/**
 * `npm run bench:performance` (not part of npm test): brings up the bench stack (BENCH_* ports), then
 *  1. sustained task_reviewed submissions from a separate load-generator process (autocannon), with p50/p99
 *     latency, and every 202 checked against the rows persisted in PostgreSQL (zero lost);
 *  2. the same load against a bare Fastify server answering 202 (the baseline of this machine);
 *  3. a 1,000,000-row quality CSV through a presigned URL: upload time, import rows/s and the peak RSS of
 *     the performance service while it imports (VmHWM, reset just before), beside two baselines on the
 *     same file: csv-parse alone (this process, same options, no checks), and psql's COPY of the same rows
 *     into an unindexed table of text columns.
 * Settings: BENCH_SECONDS (default 20), BENCH_CONNECTIONS (default 32), BENCH_CSV_ROWS (default 1000000),
 * BENCH_CSV_ONLY=1 (only part 3).
 */
import { parse } from 'csv-parse';
import { execFileSync, type ChildProcess } from 'node:child_process';
import { createReadStream, createWriteStream, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { once } from 'node:events';
import { join } from 'node:path';
import { Client } from 'pg';
import { startBaselineServer } from './lib/baseline';
import { ADMIN_TOKEN, call, cpuPerOperation, expectStatus, newWorkstream, ROOT, stackCpuMs, startBenchStack, usageOf } from './lib/common';
import { qualityBaselineRoute, qualityLoad } from './lib/quality';
import { CSV_HEADER, csvRows } from './lib/csv-file';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
const CSV_ROWS = Number(process.env.BENCH_CSV_ROWS ?? 1_000_000);
const CSV_ONLY = process.env.BENCH_CSV_ONLY === '1';

/** A process's peak resident set (VmHWM) in MB; writing 5 to clear_refs starts the peak again from now. */
const peakRssMb = (pid: number) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
const resetPeakRss = (pid: number) => writeFileSync(`/proc/${pid}/clear_refs`, '5');

/** csv-parse alone on the file, with the import's options: the floor of what parsing costs. */
async function parseOnly(file: string): Promise<{ rows: number; seconds: number }> {
  const started = process.hrtime.bigint();
  let rows = 0;
  const parser = createReadStream(file).pipe(
    parse({ bom: true, relax_column_count: true, skip_empty_lines: true, info: true, max_record_size: 1_000_000 }),
  );
  for await (const _record of parser) rows++;
  return { rows: rows - 1, seconds: Number(process.hrtime.bigint() - started) / 1e9 };
}

/** psql's COPY of the same file into an unindexed table of text columns: the floor of what storing costs. */
function psqlCopy(databaseUrl: string, file: string): { seconds: number } {
  const columns = CSV_HEADER.split(',')
    .map((name) => `"${name}" text`)
    .join(', ');
  execFileSync('psql', [databaseUrl, '-qc', `drop table if exists bench_csv_copy; create table bench_csv_copy (${columns})`]);
  const started = process.hrtime.bigint();
  execFileSync('psql', [databaseUrl, '-qc', `\\copy bench_csv_copy from '${file}' with (format csv, header true)`]);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  execFileSync('psql', [databaseUrl, '-qc', 'drop table bench_csv_copy']);
  return { seconds };
}

async function json<T>(method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const u = new URL(url);
  return (await expectStatus(
    call(u.origin, method, `${u.pathname}${u.search}`, headers, body),
    method === 'GET' ? 200 : 201,
    `${method} ${u.pathname}`,
  )) as T;
}

async function main(): Promise<void> {
  const stack = await startBenchStack();
  const db = new Client({ connectionString: stack.env.DATABASE_URL });
  await db.connect();
  try {
    const { accountId, workstreamId, key } = await newWorkstream(stack.gatewayUrl);
    const ws = { id: workstreamId };
    let gateway: Awaited<ReturnType<typeof qualityLoad>> | undefined;
    let baseline: Awaited<ReturnType<typeof qualityLoad>> | undefined;
    if (!CSV_ONLY) {
      // Warm-up (connections, JIT, caches), not counted.
      await qualityLoad(stack.gatewayUrl, ws.id, key, 4, 2);

      console.log(`\n== task_reviewed: ${CONNECTIONS} connections for ${SECONDS}s`);
      gateway = await qualityLoad(stack.gatewayUrl, ws.id, key, CONNECTIONS, SECONDS, db);
      const { acknowledged: _acknowledged, ...figures } = gateway;
      console.log(JSON.stringify(figures));

      console.log(`\n== baseline: bare Fastify server answering 202, same load`);
      const baselineServer = await startBaselineServer([qualityBaselineRoute]);
      baseline = await qualityLoad(baselineServer.base, ws.id, key, CONNECTIONS, SECONDS);
      baselineServer.stop();
      const { acknowledged: _ids, ...baselineFigures } = baseline;
      console.log(JSON.stringify(baselineFigures));
    }

    console.log(`\n== CSV import: ${CSV_ROWS.toLocaleString('en')} rows`);
    const dir = join(ROOT, '.cache', 'bench');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `quality-${CSV_ROWS}.csv`);
    const out = createWriteStream(file);
    for await (const chunk of csvRows(CSV_ROWS)) if (!out.write(chunk)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
    const bytes = statSync(file).size;
    const parsed = await parseOnly(file);
    const copied = psqlCopy(stack.env.DATABASE_URL, file);
    console.log(
      JSON.stringify({
        csv_parse_rows_per_second: Math.round(parsed.rows / parsed.seconds),
        psql_copy_rows_per_second: Math.round(CSV_ROWS / copied.seconds),
      }),
    );
    const performancePid = (stack as typeof stack & { apps: Map<string, ChildProcess> }).apps.get('performance')?.pid;
    if (!performancePid) throw new Error('the bench stack has no performance process');

    /** One import of the file into a workstream: its figures and the performance service's peak RSS meanwhile. */
    const importFile = async (workstreamId: string, apiKey: string, label: string) => {
      const rssBefore = peakRssMb(performancePid);
      resetPeakRss(performancePid);
      const load = loadavg()
        .map((n) => n.toFixed(1))
        .join(' ');
      // The service's CPU time and SQL statements until the import is done and its QC events are relayed.
      const usage = await usageOf(performancePid, `http://127.0.0.1:${Number(stack.env.PORT) + 1}/metrics`);
      const stackBefore = stackCpuMs();
      const headers = { 'x-api-key': apiKey };
      const presigned = await json<{ upload_url: string; upload_id: string }>(
        'POST',
        `${stack.gatewayUrl}/v1/workstreams/${workstreamId}/performance/generate-presigned-url`,
        { kind: 'quality' },
        headers,
      );
      const putStarted = Date.now();
      const put = await fetch(presigned.upload_url, {
        method: 'PUT',
        headers: { 'content-type': 'text/csv' },
        body: createReadStream(file) as unknown as string,
        duplex: 'half',
      } as RequestInit);
      if (put.status !== 200) throw new Error(`PUT answered ${put.status}: ${await put.text()}`);
      const uploadSeconds = (Date.now() - putStarted) / 1000;
      let upload: {
        state: string;
        rows_accepted: number;
        rows_rejected: number;
        started_at: string;
        finished_at: string;
        failure: string | null;
      };
      for (;;) {
        upload = await json(
          'GET',
          `${stack.gatewayUrl}/v1/workstreams/${workstreamId}/performance/uploads/${presigned.upload_id}`,
          undefined,
          headers,
        );
        if (upload.state === 'completed' || upload.state === 'failed') break;
        await new Promise((r) => setTimeout(r, 500));
      }
      const importSeconds = (Date.parse(upload.finished_at) - Date.parse(upload.started_at)) / 1000;
      const importedAt = Date.now();
      const backlog = async () =>
        Number(
          (
            await db.query(
              `select count(*)::int as n from messaging_outbox where source = 'performance' and published_at is null and ` +
                `dead_lettered_at is null`,
            )
          ).rows[0].n,
        );
      while ((await backlog()) > 0) await new Promise((r) => setTimeout(r, 200));
      const relayTailSeconds = (Date.now() - importedAt) / 1000;
      const used = await usage();
      const stackCpuPer1000Rows = cpuPerOperation(stackBefore, stackCpuMs(), CSV_ROWS / 1000);
      const peakRss = peakRssMb(performancePid);
      const rowsInDb = Number(
        (await db.query('select count(*)::int as n from performance_quality_record where upload_id = $1', [presigned.upload_id])).rows[0].n,
      );
      const qcEvents = Number(
        (
          await db.query(`select count(*)::int as n from messaging_outbox_events where payload->'data'->>'upload_id' = $1`, [
            presigned.upload_id,
          ])
        ).rows[0].n,
      );
      const figures = {
        import: label,
        state: upload.state,
        failure: upload.failure,
        rows: CSV_ROWS,
        bytes,
        rows_accepted: upload.rows_accepted,
        rows_rejected: upload.rows_rejected,
        rows_in_db: rowsInDb,
        qc_events: qcEvents,
        upload_seconds: uploadSeconds,
        import_seconds: importSeconds,
        import_rows_per_second: Math.round(CSV_ROWS / importSeconds),
        relay_tail_seconds: relayTailSeconds,
        performance_cpu_ms_per_row: Number((used.cpuMs / CSV_ROWS).toFixed(4)),
        performance_sql_statements_per_1000_rows: Number(((used.statements * 1000) / CSV_ROWS).toFixed(2)),
        performance_minor_faults_per_1000_rows: Math.round((used.minorFaults * 1000) / CSV_ROWS),
        stack_cpu_ms_per_1000_rows: stackCpuPer1000Rows,
        performance_rss_mb_before: Math.round(rssBefore),
        performance_peak_rss_mb: Math.round(peakRss),
        load_average_at_start: load,
      };
      console.log(JSON.stringify(figures));
      return figures;
    };
    // The generated scores are uniform, so with the default QC settings (threshold 0.5) half the rows raise
    // a QC event; the second import (QC off) shows what the records alone cost.
    const withQc = await importFile(ws.id, key, 'default QC settings');
    const admin = { authorization: `Bearer ${ADMIN_TOKEN}` };
    const quietWs = await expectStatus(
      call(stack.gatewayUrl, 'POST', '/admin/v1/workstreams', admin, {
        account_id: accountId,
        name: 'Bench no QC',
        use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }],
        qc_score_threshold: 0,
        qc_sample_rate: 0,
      }),
      201,
      'workstream without QC',
    );
    const quietKey = await expectStatus(
      call(stack.gatewayUrl, 'POST', `/admin/v1/workstreams/${quietWs.id}/api-keys`, admin, {}),
      201,
      'api key',
    );
    const withoutQc = await importFile(quietWs.id, quietKey.key, 'QC off');
    // The first import runs on a stack just started (CSV_ONLY): the broker's JIT compilers were then as busy as
    // its request handlers (a JFR recording, docs/benchmarks.md "A warm broker"). The same import again, into a
    // new workstream with the default QC settings, shows what a stack that has been running does.
    const warmWs = await newWorkstream(stack.gatewayUrl, 'Bench QC, warm');
    const warmQc = await importFile(warmWs.workstreamId, warmWs.key, 'default QC settings, again (warm stack)');

    console.log('\n== summary');
    if (gateway && baseline) {
      console.log(
        `task_reviewed via gateway: ${gateway.perSecond.toFixed(0)} req/s, p50 ${gateway.p50} ms, p99 ${gateway.p99} ` +
          `ms, ${gateway.count} x 202, ${gateway.persisted} of them persisted, lost ${gateway.lost}, failed ${gateway.failed}`,
      );
      console.log(`bare Fastify baseline:     ${baseline.perSecond.toFixed(0)} req/s, p50 ${baseline.p50} ms, p99 ${baseline.p99} ms`);
    }
    console.log(
      `CSV baselines on the same file (${CSV_ROWS} rows, ${(bytes / 1e6).toFixed(0)} MB): csv-parse alone ` +
        `${Math.round(parsed.rows / parsed.seconds)} rows/s; psql COPY ${Math.round(CSV_ROWS / copied.seconds)} rows/s`,
    );
    for (const f of [withQc, withoutQc, warmQc]) {
      console.log(
        `CSV import, ${f.import}: ${f.import_rows_per_second} rows/s (${f.import_seconds.toFixed(1)} s, ${f.qc_events} ` +
          `QC events, relayed ${f.relay_tail_seconds.toFixed(1)} s after), ` +
          `performance service ${f.performance_cpu_ms_per_row} ms CPU per row and ` +
          `${f.performance_sql_statements_per_1000_rows} SQL statements and ${f.performance_minor_faults_per_1000_rows} ` +
          `minor page faults per 1,000 rows (import and relay), peak RSS ${f.performance_peak_rss_mb} MB; load ` +
          `${f.load_average_at_start}; CPU ms per 1,000 rows (import and relay): ${f.stack_cpu_ms_per_1000_rows}`,
      );
    }
    if ((gateway && gateway.lost !== 0) || [withQc, withoutQc, warmQc].some((f) => f.state !== 'completed' || f.rows_in_db !== CSV_ROWS))
      process.exitCode = 1;
  } finally {
    await db.end();
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
