import 'reflect-metadata';
import { Topic } from '@workline/contracts';
import { adminCreate, eventually, http, testStack, callsOnly } from '@workline/testing';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';

// It calls the gateway and the performance service only (libs/testing/src/stack-turns.ts).
callsOnly(['gateway', 'performance']);

/**
 * Golden comparison of the CSV import (issue 15): one quality file with everything that has gone wrong in
 * CSV importers (repeats of a unique_id inside a batch, across batches and against earlier records, with
 * and without replace_duplicate; rejected rows; quoted line breaks; tabs, backslashes and COPY's own escape
 * sequences in cells; odd Unicode) is imported, and what the import leaves behind (the stored rows, the
 * upload's counters and rejection report, the quality-control events) must equal the fixture, which was
 * recorded from the import as it was before the COPY pipeline (jsonb batches of 2,000 rows).
 * GOLDEN_UPDATE=1 records the fixture again (only ever against a trusted implementation).
 */

const FIXTURE = join(__dirname, 'fixtures', 'csv-import-golden.json');

const COLUMNS = [
  'workstream_id',
  'use_case_id',
  'task_definition_id',
  'dataset_id',
  'asset_id',
  'task_id',
  'unique_id',
  'replace_duplicate',
  'task_url',
  'task_completed_at',
  'worker_id',
  'review_completed_at',
  'review_duration',
  'reviewed_by',
  'review_score',
  'review_explanation',
  'review_type',
  'task_review_count',
  'subtask_review_count',
  'errors.missing_box',
  'errors.wrong_label',
  'metadata.shift',
  'metadata.note',
  'measurements.count',
  'measurements.label',
] as const;
type Column = (typeof COLUMNS)[number];

/** RFC 4180 cell: quoted when it holds a comma, a quote or a line break. */
const cell = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

const BASE: Partial<Record<Column, string>> = {
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  worker_id: 'ann@example.com',
  review_completed_at: '2024-05-01T10:00:00Z',
  review_score: '0.9',
};

const line = (values: Partial<Record<Column, string>>) => COLUMNS.map((column) => cell({ ...BASE, ...values }[column] ?? '')).join(',');

/** The rows written by hand: each is a case an importer has got wrong somewhere. */
function craftedRows(workstreamId: string): string[] {
  return [
    line({ unique_id: 'e-1', review_explanation: 'line one\nline two', 'metadata.shift': 'x' }),
    line({ unique_id: 'e-2', review_explanation: 'crlf\r\ninside', reviewed_by: 'tab\there' }),
    line({ unique_id: 'e-3', review_explanation: 'back\\slash \\N \\. \\\\ end\\', 'metadata.note': '\\N' }),
    line({ unique_id: 'e-4', review_explanation: '\\.', 'metadata.note': 'tab\tand\\t literal', 'measurements.label': 'a\\nb' }),
    // Unquoted cells keep tabs and backslashes as they are.
    `,uc-1,td-1,,,,e-5,,,,w\ttab@example.com,2024-05-01T10:00:00Z,,,0.3,C:\\dir\\file\tx,,,,,,,,,`,
    line({
      unique_id: 'e-6',
      review_explanation: '😀 emoji, e\u0301 combining, \u200d zwj, \u2028 line sep, \u202e rtl, \ufeff bom, 中文, \uFFFD',
      'metadata.shift': 'ñight ☾',
    }),
    line({ unique_id: 'ü-7 \u00a0nbsp', worker_id: 'zoë@example.com', 'measurements.label': '𝔘𝔫𝔦𝔠𝔬𝔡𝔢' }),
    line({
      unique_id: 'e-8',
      review_explanation: '"quoted", with ""double"" quotes',
      'metadata.note': '{"json": [1, 2]}',
      'measurements.label': '[]',
    }),
    line({
      unique_id: 'e-9',
      'measurements.count': ' 1e3 ',
      'measurements.label': '-0',
      'errors.missing_box': '3',
      'errors.wrong_label': '0',
    }),
    line({
      unique_id: 'e-10',
      review_duration: '12.5',
      task_review_count: '2',
      subtask_review_count: '0',
      review_type: 'Spot Check',
      reviewed_by: 'rev',
    }),
    line({
      unique_id: 'e-11',
      task_completed_at: '2024-05-01T10:00:00.123456+05:30',
      review_completed_at: ' 2024-02-29T23:59:59-0800 ',
      task_url: 'https://tool.example.com/t?a=1&b=%20',
    }),
    line({ unique_id: 'e-12', workstream_id: workstreamId, dataset_id: 'ds', asset_id: 'as', task_id: 'tk', review_score: '0.1' }),
    line({ unique_id: 'e-13', review_score: '1e-2', review_duration: '0', review_type: 'QA' }),
    line({ unique_id: 'e-14', review_score: '0.5', review_explanation: '   spaces kept   ' }),
    // Repeats inside the batch: default (true) replaces, false is ignored, TRUE replaces again.
    line({ unique_id: 'r-1', review_score: '0.2', review_explanation: 'first' }),
    line({ unique_id: 'r-1', review_score: '0.3', review_explanation: 'second, replaces' }),
    line({ unique_id: 'r-1', review_score: '0.4', review_explanation: 'third, ignored', replace_duplicate: 'false' }),
    line({ unique_id: 'r-1', review_score: '0.45', review_explanation: 'fourth, replaces', replace_duplicate: 'TRUE' }),
    line({ unique_id: 'r-2', review_score: '0.6', replace_duplicate: 'false', review_explanation: 'first, keep' }),
    line({ unique_id: 'r-2', review_score: '0.1', replace_duplicate: 'False', review_explanation: 'ignored' }),
    line({ unique_id: 'r-3', review_score: '0.6', replace_duplicate: 'false', review_explanation: 'first, keep' }),
    line({ unique_id: 'r-3', review_score: '0.2', replace_duplicate: 'true', review_explanation: 'replaces the first' }),
    // Same unique_id under another task definition or use case: another record.
    line({ unique_id: 'r-1', task_definition_id: 'td-2', review_score: '0.7' }),
    line({ unique_id: 'r-1', use_case_id: 'uc-2', task_definition_id: 'td-3', review_score: '0.7' }),
    // Repeats of records submitted before the upload (seeded by the test through the API).
    line({ unique_id: 'pre-keep', review_score: '0.05', replace_duplicate: 'false', review_explanation: 'ignored: exists' }),
    line({ unique_id: 'pre-replace', review_score: '0.15', review_explanation: 'replaces the API record' }),
    line({ unique_id: 'pre-twice', review_score: '0.15', replace_duplicate: 'false', review_explanation: 'ignored' }),
    line({ unique_id: 'pre-twice', review_score: '0.25', review_explanation: 'replaces the API record after an ignored repeat' }),
    // Rejected rows.
    line({ unique_id: 'x-1', review_score: '1.5' }),
    line({ unique_id: 'x-2', review_score: 'abc', review_completed_at: 'yesterday' }),
    line({ unique_id: 'x-3', use_case_id: 'uc-9' }),
    line({ unique_id: 'x-4', task_definition_id: 'td-3' }),
    line({ unique_id: 'x-5', workstream_id: 'someone-else' }),
    line({ unique_id: 'x-6', replace_duplicate: 'maybe', review_type: 'QAX' }),
    line({ unique_id: 'x-7', review_score: '0.'.padEnd(70, '5') }),
    line({ unique_id: 'x-8', 'errors.missing_box': '-1', 'errors.wrong_label': '1.5', task_review_count: '2.5' }),
    line({ unique_id: 'x-9'.padEnd(201, 'z') }),
    line({ unique_id: 'x-10', worker_id: '   ', review_score: '' }),
    line({ unique_id: 'x-11', task_url: 'not a url', review_explanation: 'tab\tin a rejected row' }),
    line({ unique_id: 'x-12', 'metadata.note': 'm'.repeat(1001) }),
    'uc-1,td-1,too,few', // fewer fields than the header
    `${line({ unique_id: 'x-13' })},extra`, // more
    '',
    line({ unique_id: 'after-blank', review_score: '0.33' }),
    // No unique_id: never a repeat, even when identical.
    line({ review_explanation: 'no id' }),
    line({ review_explanation: 'no id' }),
    line({ unique_id: '', review_explanation: 'empty id cell', review_score: '0.01' }),
  ];
}

/**
 * Generated rows: 2,600 of them, so repeats cross the 2,000-row batches of the old import (and whatever
 * the new one uses). unique_id `g-<n>` repeats every 1,300 rows; replace_duplicate cycles through
 * empty, true, false and FALSE; every 11th row has no unique_id; every 97th is refused.
 */
function generatedRows(): string[] {
  const rows: string[] = [];
  for (let i = 0; i < 2600; i++) {
    const replace = ['', 'true', 'false', 'FALSE'][i % 4];
    const score = i % 97 === 0 ? '2' : String(((i * 7919) % 1000) / 1000);
    rows.push(
      line({
        unique_id: i % 11 === 0 ? '' : `g-${i % 1300}`,
        replace_duplicate: replace,
        task_definition_id: i % 3 === 0 ? 'td-2' : 'td-1',
        worker_id: `w-${i % 37}@example.com`,
        review_completed_at: new Date(Date.UTC(2024, 4, 1) + i * 61_000).toISOString(),
        review_score: score,
        review_explanation: i % 5 === 0 ? `row ${i}\nsecond line\twith tab \\ backslash` : `row ${i}`,
        'errors.missing_box': String(i % 4),
        'metadata.shift': i % 2 ? 'day' : 'night',
        'measurements.count': String(i % 9),
        'measurements.label': i % 7 === 0 ? 'car' : '',
      }),
    );
  }
  return rows;
}

/** The whole golden file: BOM, CRLF line ends, the crafted rows, then the generated ones. */
export function goldenCsv(workstreamId: string): string {
  return `\ufeff${[COLUMNS.join(','), ...craftedRows(workstreamId), ...generatedRows()].join('\r\n')}\r\n`;
}

interface Golden {
  upload: Record<string, unknown>;
  records: Record<string, unknown>[];
  qcEvents: Record<string, unknown>[];
}

/** The fixture: one line per record and event, so a difference shows as a line in a diff. */
const writeFixture = (cases: Record<string, Golden>) =>
  `{\n${Object.entries(cases)
    .map(([name, golden]) =>
      [
        `${JSON.stringify(name)}: {`,
        `"upload": ${JSON.stringify(golden.upload)},`,
        '"records": [',
        golden.records.map((r) => JSON.stringify(r)).join(',\n'),
        '],',
        '"qcEvents": [',
        golden.qcEvents.map((e) => JSON.stringify(e)).join(',\n'),
        ']}',
      ].join('\n'),
    )
    .join(',\n')}\n}\n`;

/** Keys whose value is null are left out (the fixture stays readable and small). */
const withoutNulls = (value: Record<string, unknown>) => Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null));

describe('CSV import: golden comparison against the import before the COPY pipeline (real stack)', () => {
  const stack = testStack();
  const db = new Client({ connectionString: stack.databaseUrl });
  const recorded: Record<string, Golden> = {};
  const expected = () => JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, Golden>;

  beforeAll(async () => {
    await db.connect();
    await db.query(`set timezone = 'UTC'`);
  });
  afterAll(async () => {
    await db.end();
    if (process.env.GOLDEN_UPDATE === '1') writeFileSync(FIXTURE, writeFixture(recorded));
  });

  /** A workstream (threshold 0.25, no sampling: the QC events are deterministic), its key and account. */
  async function workstream(name: string) {
    const account = await adminCreate<{ id: string }>('/accounts', { name: `${name} Co` });
    const useCases = [
      { id: 'uc-1', task_definition_ids: ['td-1', 'td-2'] },
      { id: 'uc-2', task_definition_ids: ['td-3'] },
    ];
    const ws = await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name,
      use_cases: useCases,
      qc_score_threshold: 0.25,
      qc_sample_rate: 0,
    });
    const { key } = await adminCreate<{ key: string }>(`/workstreams/${ws.id}/api-keys`, {});
    return { id: ws.id, accountId: account.id, headers: { 'x-api-key': key } };
  }

  async function importCsv(ws: { id: string; headers: Record<string, string> }, csv: string) {
    const presigned = (
      await http<{ upload_url: string; upload_id: string }>('POST', `/v1/workstreams/${ws.id}/performance/generate-presigned-url`, {
        headers: ws.headers,
        body: { kind: 'quality' },
      })
    ).body;
    const put = await fetch(presigned.upload_url, { method: 'PUT', headers: { 'content-type': 'text/csv' }, body: csv });
    expect(put.status).toBe(200);
    const upload = await eventually(
      async () => {
        const view = (
          await http<Record<string, unknown>>('GET', `/v1/workstreams/${ws.id}/performance/uploads/${presigned.upload_id}`, {
            headers: ws.headers,
          })
        ).body;
        return ['completed', 'failed'].includes(view.state as string) ? view : undefined;
      },
      { what: 'the golden upload to finish', timeoutMs: 120_000, intervalMs: 250 },
    );
    expect(upload.bytes).toBe(Buffer.byteLength(csv));
    return { uploadId: presigned.upload_id, upload };
  }

  it('stores the same rows, counts and reports the same, and raises the same QC events', async () => {
    const ws = await workstream('Golden');
    for (const unique_id of ['pre-keep', 'pre-replace', 'pre-twice', 'g-5', 'g-6']) {
      const body = {
        workstream_id: ws.id,
        use_case_id: 'uc-1',
        task_definition_id: 'td-1',
        unique_id,
        worker_id: 'api@example.com',
        review_completed_at: '2024-04-01T00:00:00Z',
        review_score: 0.8,
      };
      expect((await http('POST', `/v1/workstreams/${ws.id}/task_reviewed`, { headers: ws.headers, body })).status).toBe(202);
    }
    const { uploadId, upload } = await importCsv(ws, goldenCsv(ws.id));
    const actual = (recorded.main = await observed(ws, uploadId, upload));
    expect(actual.upload).toMatchObject({ state: 'completed', rows_processed: 2646 });
    if (process.env.GOLDEN_UPDATE === '1') return;
    expect(actual.upload).toEqual(expected().main.upload);
    expect(actual.records).toEqual(expected().main.records);
    expect(actual.qcEvents).toEqual(expected().main.qcEvents);
  });

  it('a NUL character in a cell (PostgreSQL text cannot hold one): the same outcome as before', async () => {
    const ws = await workstream('Golden NUL');
    const csv = [
      COLUMNS.join(','),
      line({ unique_id: 'n-1' }),
      line({ unique_id: 'n-2', review_explanation: 'nul \u0000 here' }),
      line({ unique_id: 'n-3' }),
    ].join('\n');
    const { uploadId, upload } = await importCsv(ws, csv);
    const actual = (recorded.nul = await observed(ws, uploadId, upload));
    if (process.env.GOLDEN_UPDATE === '1') return;
    expect(actual).toEqual(expected().nul);
  });

  /**
   * What the import left behind, without what differs from run to run (ids, times, the workstream's id) and
   * the bookkeeping of the API requests that wrote records before the import (last_request_*).
   */
  async function observed(ws: { id: string; accountId: string }, uploadId: string, upload: Record<string, unknown>): Promise<Golden> {
    const swap = <T>(value: T): T =>
      JSON.parse(
        JSON.stringify(value).split(ws.id).join('<ws>').split(uploadId).join('<upload>').split(ws.accountId).join('<account>'),
      ) as T;
    const { rows: records } = await db.query<{ id: string; record: Record<string, unknown> }>(
      `select id::text,
         to_jsonb(r) - 'id' - 'created_at' - 'updated_at' - 'workstream_id' - 'last_request_id' - 'last_request_outcome' as record
       from performance_quality_record r where workstream_id = $1`,
      [ws.id],
    );
    const idToRecord = new Map(records.map((r) => [r.id, r.record]));
    const recordsOut = records.map((r) => swap(withoutNulls(r.record))).sort(byJson);
    const { rows: events } = await db.query<{
      key: string;
      payload: { data: Record<string, unknown> & { record: Record<string, unknown> } };
    }>(`select key, payload from messaging_outbox_events where topic = $1 and payload->'data'->>'upload_id' = $2 order by seq, ord`, [
      Topic.QualityReviewForQc,
      uploadId,
    ]);
    const qcEvents = events.map(({ key, payload }) => {
      const { record_id, record, ...data } = payload.data;
      // The record an event names, by what it holds (its id is random).
      const target = idToRecord.get(record_id as string);
      return swap({
        key,
        ...data,
        record: withoutNulls(record),
        names: target ? { unique_id: target.unique_id, review_explanation: target.review_explanation } : 'missing',
      });
    });
    const {
      upload_id: _u,
      workstream_id: _w,
      created_at: _c,
      expires_at: _e,
      received_at: _r,
      started_at: _s,
      finished_at: _f,
      bytes: _b,
      ...view
    } = upload;
    return { upload: swap(view), records: recordsOut, qcEvents };
  }
});

const byJson = (a: unknown, b: unknown) => {
  const [x, y] = [JSON.stringify(a), JSON.stringify(b)];
  return x < y ? -1 : x > y ? 1 : 0;
};
