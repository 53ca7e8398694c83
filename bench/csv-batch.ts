/**
 * The CPU a CSV import spends on a row in the performance service before PostgreSQL sees it, in one process,
 * no stack: csv-parse alone on the file (the baseline), then csv-parse and the import's batches (libs/performance
 * ImportBatch: the cells read as a record body, the rules' checks, the QC decision and the record's QC JSON, the
 * COPY text), then the same with each batch applied as if PostgreSQL had stored every row: the QC events' JSON
 * and the outbox rows' text built, the statements answered in memory.
 *
 *   npm run bench:csv-batch
 *
 * Settings: BENCH_CSV_BATCH_ROWS (default 200,000) rows of bench/performance's file, BENCH_CSV_BATCH_ROUNDS
 * (default 5) rounds of the three measures in turn; each prints the least CPU of its rounds, µs per row, and its
 * ratio to csv-parse alone.
 */
import { type Sql, type Statement } from '@workline/db';
import { csvColumns, type CsvColumn, CSV_PARSE_OPTIONS, QC_DEFAULTS, type WorkstreamConfig } from '@workline/performance';
import { parse } from 'csv-parse';
import { ImportBatch } from '../libs/performance/src/csv-import';
import { CSV_HEADER, csvRows } from './lib/csv-file';

const ROWS = Number(process.env.BENCH_CSV_BATCH_ROWS ?? 200_000);
const ROUNDS = Number(process.env.BENCH_CSV_BATCH_ROUNDS ?? 5);
const BATCH_ROWS = 2000;

const workstream: WorkstreamConfig = {
  id: 'ws_bench',
  account_id: 'acc_bench',
  use_cases: [{ id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] }],
  ...QC_DEFAULTS,
};

/** PostgreSQL's answers for a batch whose every row is new: the upsert's counts and QC rows, then nothing. */
function storedEverything(batch: ImportBatch): Sql {
  return {
    query: async <R extends object>(statement: Statement) => {
      if (!statement.name.endsWith('_import_upsert')) return [] as R[];
      const stored = batch.groups.flatMap((group, seq) => (group.qc ? [[seq, group.id]] : []));
      return [{ inserted: batch.groups.length, stored, replaced: [] }] as unknown as R[];
    },
  };
}

/** This process's CPU (user and system) since `before`, in µs. */
function cpuMicrosSince(before: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/**
 * Feeds the file's chunks to a csv-parse parser (the import's options) and hands each record to `onRecord` as
 * the parser gives them, as the import reads them: records live only as long as their batch. `afterChunk`
 * runs after each chunk's records (not counted by the caller's clock if it stops it there).
 */
async function parseStreaming(
  chunks: string[],
  onRecord: (cells: string[]) => void,
  afterChunk: () => Promise<void> = async () => undefined,
): Promise<void> {
  const parser = parse(CSV_PARSE_OPTIONS);
  let failure: Error | undefined;
  parser.on('error', (error: Error) => (failure = error));
  const drain = () => {
    for (let cells = parser.read() as string[] | null; cells !== null; cells = parser.read() as string[] | null) onRecord(cells);
  };
  for (const chunk of chunks) {
    parser.write(chunk);
    drain();
    await afterChunk();
  }
  parser.end();
  drain();
  await afterChunk();
  if (failure) throw failure;
}

async function main(): Promise<void> {
  const chunks = [...csvRows(ROWS)];
  const read = csvColumns('quality', CSV_HEADER.split(','));
  if ('error' in read) throw new Error(read.error);
  const header: CsvColumn[] = read.columns;

  const best = { parse: Infinity, stage: Infinity, apply: Infinity };
  let events = 0;
  for (let round = 0; round < ROUNDS; round++) {
    let parsed = 0;
    let before = process.cpuUsage();
    await parseStreaming(chunks, () => parsed++);
    best.parse = Math.min(best.parse, cpuMicrosSince(before));

    // Staging (parse, checks, COPY text) and applying are timed apart; applying a batch is async (statements).
    const full: ImportBatch[] = [];
    let line = 0;
    let batch = new ImportBatch('quality', workstream);
    const seal = () => {
      for (const chunk of batch.copyText('upl_bench')) if (!chunk) throw new Error('empty COPY chunk');
      full.push(batch);
      batch = new ImportBatch('quality', workstream);
    };
    let stageMicros = 0;
    let applyMicros = 0;
    let stored = 0;
    events = 0;
    const applyFull = async () => {
      const applying = process.cpuUsage();
      for (const done of full.splice(0)) {
        events += done.groups.filter((group) => group.qc).length;
        stored += (await done.apply(storedEverything(done), 'upl_bench')).stored;
      }
      applyMicros += cpuMicrosSince(applying);
    };
    // The clock of staging stops while the full batches are applied (which has its own).
    before = process.cpuUsage();
    await parseStreaming(
      chunks,
      (cells) => {
        if (++line === 1) return;
        batch.add(line, header, cells);
        if (batch.size === BATCH_ROWS) seal();
      },
      async () => {
        stageMicros += cpuMicrosSince(before);
        await applyFull();
        before = process.cpuUsage();
      },
    );
    before = process.cpuUsage();
    if (batch.size) seal();
    stageMicros += cpuMicrosSince(before);
    await applyFull();
    best.stage = Math.min(best.stage, stageMicros);
    best.apply = Math.min(best.apply, applyMicros);
    if (parsed !== ROWS + 1 || stored !== ROWS) throw new Error(`parsed ${parsed - 1} and applied ${stored} rows of ${ROWS}`);
  }
  const perRow = (micros: number) => (micros / ROWS).toFixed(2);
  const rows = [
    ['csv-parse alone', best.parse],
    ['csv-parse + ImportBatch (checks, QC decision, COPY text)', best.stage],
    ['… + applying the batches (QC events and outbox text)', best.stage + best.apply],
  ] as const;
  console.log(`${ROWS} rows, ${events} QC events, least CPU of ${ROUNDS} rounds`);
  console.log('| measure | µs of CPU per row | ÷ csv-parse alone |');
  console.log('|---|---:|---:|');
  for (const [name, micros] of rows) console.log(`| ${name} | ${perRow(micros)} | ${(micros / best.parse).toFixed(2)} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
