import { type FieldError, type QcReason, ServiceName, Topic } from '@workline/contracts';
import { type Sql, statement, timeOrderedUuid } from '@workline/db';
import { enqueueEventBatchJson } from '@workline/messaging';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { PoolClient } from 'pg';
import { from as copyFrom } from 'pg-copy-streams';
import { type CsvColumn, csvRowToInput } from './csv-rows';
import { checkRecord, type PerformanceKind, type QualityRecordInput, type RecordInputOf, type WorkstreamConfig } from './record-rules';
import { KEY_COLUMNS, qcEventDataJson, qcReason, qcRecordJson, TABLES } from './record-store';

/**
 * The write side of a CSV import (docs/csv-formats.md, "How an import runs"): a batch of checked rows is
 * written with COPY into a per-connection staging table, then ONE statement upserts the staging rows into
 * the record table (ON CONFLICT applies the unique_id rule and replace_duplicate against earlier records)
 * and returns only the inserted count and the rows quality control needs. Repeats inside a batch are
 * settled here first (one INSERT may not touch a row twice), exactly as storeRecords settles them.
 */

type AnyRecord = RecordInputOf[PerformanceKind];

/**
 * A record's key inside a batch (the workstream is the upload's), ordered as the key's unique index is
 * (KEY_COLUMNS): unique_id, use case, task definition.
 */
const keyOf = (useCase: string, taskDefinition: string, uniqueId: string) => `${uniqueId}\u0000${useCase}\u0000${taskDefinition}`;

/** One key's records in a batch, collapsed to the one row the upsert writes. */
interface Group {
  /** The id the row gets if it is new. */
  id: string;
  /** Index (in the batch's accepted records) of the first record of the key. */
  first: number;
  /** Whether that first record had replace_duplicate true. */
  firstReplaces: boolean;
  /** Later records of the key with replace_duplicate true: each replaced the one before. */
  replacers: number[];
  /**
   * The columns of the row it ends up with (the last replacing record, else the first) in COPY's text
   * form, one flat string: the checked record itself is not kept (a batch lives across many young-generation
   * collections, and its records were most of what they copied and promoted).
   */
  values: string;
  /**
   * Where the upsert's `order by` puts the row: by its key; a record without a unique_id (`keyless`) after
   * every record with one (PostgreSQL puts NULLs last), by use case and task definition.
   */
  sortKey: string;
  keyless: boolean;
  /** Whether the upsert replaces an existing row (the first record does, or a later one does). */
  replace: boolean;
  /** Whether a record of the group may cause a QC event (so the upsert must say where it went). */
  qc: boolean;
}

export interface BatchCounts {
  stored: number;
  replaced: number;
  ignored: number;
  rejected: number;
}

/** The rows of one transaction: checked records (grouped by key), and the rows refused with their reasons. */
export class ImportBatch {
  /** Accepted records so far. */
  private accepted = 0;
  /** The accepted records QC sees if they are written (by index), as JSON text (qcRecordJson), and why. */
  private readonly forQc = new Map<number, { recordJson: string; reason: QcReason }>();
  readonly rejections: { row: number; errors: FieldError[] }[] = [];
  readonly groups: Group[] = [];
  private readonly byKey = new Map<string, Group>();
  private readonly columns: [string, string][];

  constructor(
    readonly kind: PerformanceKind,
    private readonly workstream: WorkstreamConfig,
    private readonly random: () => number = Math.random,
  ) {
    this.columns = TABLES[kind].columns;
  }

  get size(): number {
    return this.accepted + this.rejections.length;
  }

  /** Checks one CSV row by the rules of the JSON endpoints; `row` is its line number in the file. */
  add(row: number, columns: CsvColumn[], cells: string[]): void {
    if (cells.length !== columns.length) {
      this.rejections.push({
        row,
        errors: [{ field: '(row)', message: `the row has ${cells.length} fields, the header has ${columns.length}` }],
      });
      return;
    }
    const input = csvRowToInput(this.kind, columns, cells);
    // A CSV row may leave workstream_id out: the upload's workstream is meant (a value must still match).
    input.body.workstream_id ??= this.workstream.id;
    const checked = checkRecord(this.kind, input.body, this.workstream);
    if (checked.ok && !input.errors.length) {
      this.accept(checked.record);
      return;
    }
    // A cell refused as it stands was left out of the body: the rules' "is required" for it would mislead.
    const ruleErrors = checked.ok ? [] : checked.errors.filter((error) => !input.errors.some((cell) => cell.field === error.field));
    this.rejections.push({ row, errors: [...input.errors, ...ruleErrors] });
  }

  private accept(record: AnyRecord): void {
    const index = this.accepted++;
    const reason = this.kind === 'quality' ? qcReason(record as QualityRecordInput, this.workstream, this.random) : undefined;
    if (reason !== undefined) this.forQc.set(index, { recordJson: qcRecordJson(record as QualityRecordInput), reason });
    const key = record.unique_id === null ? undefined : keyOf(record.use_case_id, record.task_definition_id, record.unique_id);
    const earlier = key === undefined ? undefined : this.byKey.get(key);
    if (!earlier) {
      const group: Group = {
        id: timeOrderedUuid(),
        first: index,
        firstReplaces: record.replace_duplicate,
        replacers: [],
        values: this.copyValues(record),
        sortKey: key ?? `${record.use_case_id}\u0000${record.task_definition_id}`,
        keyless: key === undefined,
        replace: record.replace_duplicate,
        qc: reason !== undefined,
      };
      this.groups.push(group);
      if (key !== undefined) this.byKey.set(key, group);
    } else if (record.replace_duplicate) {
      earlier.replacers.push(index);
      earlier.values = this.copyValues(record);
      earlier.replace = true;
      earlier.qc ||= reason !== undefined;
    }
    // A later repeat with replace_duplicate false is ignored whatever the database holds.
  }

  /** The record's workstream and columns in COPY's text form; join makes one flat string of them. */
  private copyValues(record: AnyRecord): string {
    const values = record as unknown as Record<string, unknown>;
    const cells = [copyText(record.workstream_id)];
    for (const [name, type] of this.columns) cells.push(copyValue(values[name], type));
    return cells.join('\t');
  }

  /**
   * The COPY text of the batch's rows (the staging table's columns), in chunks of about 64 KB, in the order
   * of their key: the upsert sorts them by key (so concurrent writers lock rows in one order), and
   * PostgreSQL's sort checks first whether its input is sorted already, in one pass.
   */
  *copyText(uploadId: string): Generator<string> {
    let chunk = '';
    const upload = copyText(uploadId);
    const order = this.groups.map((group, seq) => ({ seq, keyless: group.keyless, key: group.sortKey }));
    order.sort((a, b) => (a.keyless !== b.keyless ? (a.keyless ? 1 : -1) : a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    for (const { seq } of order) {
      const group = this.groups[seq];
      chunk += `${seq}\t${group.replace ? 't' : 'f'}\t${group.qc ? 't' : 'f'}\t${group.id}\t${group.values}\t${upload}\n`;
      if (chunk.length >= 65_536) {
        yield chunk;
        chunk = '';
      }
    }
    if (chunk) yield chunk;
  }

  /**
   * Copies the batch's rows into the staging table of `client`'s open transaction (COPY needs the
   * connection itself). It touches no shared table, so it may run while an earlier batch is being applied.
   */
  async stage(client: PoolClient, uploadId: string): Promise<void> {
    if (!this.groups.length) return;
    await pipeline(Readable.from(this.copyText(uploadId)), client.query(copyFrom(STAGES[this.kind].copy)));
  }

  /**
   * Writes the staged rows into the record table in the same transaction and returns the outcome counts;
   * QC events go to the outbox in that transaction too.
   */
  async apply(sql: Sql, uploadId: string): Promise<BatchCounts> {
    const counts: BatchCounts = { stored: 0, replaced: 0, ignored: 0, rejected: this.rejections.length };
    if (!this.groups.length) return counts;
    const [result] = await sql.query<{ inserted: number; stored: [number, string][]; replaced: [string, string, string, string][] }>(
      STAGES[this.kind].upsert,
    );
    counts.stored = result.inserted;
    const events: { index: number; dataJson: string }[] = [];
    const eventFor = (index: number, id: string, outcome: 'stored' | 'replaced') => {
      const qc = this.forQc.get(index);
      if (qc) events.push({ index, dataJson: qcEventDataJson(qc.recordJson, this.workstream, qc.reason, { id, outcome }, uploadId) });
    };
    for (const group of this.groups) counts.replaced += group.replacers.length;
    const written = (group: Group, id: string, inserted: boolean) => {
      if (!inserted && group.firstReplaces) counts.replaced++;
      if (inserted || group.firstReplaces) eventFor(group.first, id, inserted ? 'stored' : 'replaced');
      for (const index of group.replacers) eventFor(index, id, 'replaced');
    };
    for (const [seq, id] of result.stored) written(this.groups[seq], id, true);
    for (const [id, useCase, taskDefinition, uniqueId] of result.replaced) {
      const group = this.byKey.get(keyOf(useCase, taskDefinition, uniqueId));
      if (!group) throw new Error(`the upsert replaced record ${id}, whose key no staged row has`);
      written(group, id, false);
    }
    counts.ignored = this.accepted - counts.stored - counts.replaced;
    if (events.length) {
      events.sort((a, b) => a.index - b.index);
      // One outbox row for the batch's events (all keyed by the workstream): docs/decisions.md, "Event batches in the outbox".
      await enqueueEventBatchJson(
        sql,
        ServiceName.Performance,
        Topic.QualityReviewForQc,
        events.map((e) => e.dataJson),
        { key: this.workstream.id },
      );
    }
    return counts;
  }

  /** Creates the staging table of `kind` on this connection if it has none yet (once per import). */
  static async prepare(sql: Sql, kind: PerformanceKind): Promise<void> {
    await sql.query(STAGES[kind].create);
  }

  /** QC events this batch would cause at most (so the caller knows whether to poke the outbox relay). */
  get mayCauseEvents(): boolean {
    return this.groups.some((group) => group.qc);
  }
}

/**
 * A cell PostgreSQL cannot store: text may not hold U+0000. The old import sent batches as jsonb, which
 * refused such a batch with this message; the COPY pipeline keeps the outcome (the upload fails there).
 */
class NulCharacter extends Error {
  constructor() {
    super('unsupported Unicode escape sequence');
  }
}

// eslint-disable-next-line no-control-regex -- NUL is what this looks for: PostgreSQL text cannot hold it
const COPY_SPECIAL = /[\\\n\r\t\u0000]/;
const COPY_ESCAPES = /[\\\n\r\t]/g;
const ESCAPED: Record<string, string> = { '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** A text value in COPY's text format: backslash, line breaks and tab escaped; NUL cannot be sent. */
export function copyText(text: string): string {
  if (!COPY_SPECIAL.test(text)) return text;
  if (text.includes('\u0000')) throw new NulCharacter();
  return text.replace(COPY_ESCAPES, (c) => ESCAPED[c]);
}

/** One value in COPY's text format, by the column's PostgreSQL type; `\N` is NULL. */
export function copyValue(value: unknown, type: string): string {
  if (value === null || value === undefined) return '\\N';
  switch (type) {
    case 'jsonb':
      // JSON.stringify escapes a NUL as \u0000, which jsonb refuses itself (as the old import's batches did).
      return copyText(JSON.stringify(value));
    case 'boolean':
      return value ? 't' : 'f';
    case 'double precision':
    case 'int':
      return String(value);
    default:
      return copyText(String(value));
  }
}

/** Per kind: the staging table (temporary, per connection, emptied at each commit) and the statements on it. */
const STAGES = Object.fromEntries(
  (['quality', 'throughput'] as const).map((kind) => {
    const { table, columns } = TABLES[kind];
    const stage = `performance_${kind}_stage`;
    const all: [string, string][] = [['id', 'uuid'], ['workstream_id', 'text'], ...columns, ['upload_id', 'text']];
    const names = all.map(([name]) => name).join(', ');
    const key = KEY_COLUMNS.join(', ');
    const updates = [...columns.filter(([name]) => !KEY_COLUMNS.includes(name)).map(([name]) => name), 'upload_id']
      .map((name) => `${name} = excluded.${name}`)
      .join(', ');
    // A written row whose id was staged is new (`stored`: those QC sees); any other is an existing row a
    // staged row replaced (`replaced`, by key: the batch finds the group by its key). Told apart by id, one
    // hash join: matching them up by key in SQL took two sorts of the batch by four text columns.
    const upsert = `
      with upserted as (
        insert into ${table} (${names}) select ${names} from ${stage} where replace order by ${key}
        on conflict (${key}) do update set ${updates}, updated_at = now()
        returning id, workstream_id, use_case_id, task_definition_id, unique_id
      ), kept as (
        insert into ${table} (${names}) select ${names} from ${stage} where not replace order by ${key}
        on conflict (${key}) do nothing
        returning id, workstream_id, use_case_id, task_definition_id, unique_id
      ), written as (
        select * from upserted union all select * from kept
      ), flagged as (
        select w.id, w.use_case_id, w.task_definition_id, w.unique_id, s.seq, s.qc
        from written w left join ${stage} s on s.id = w.id
      )
      select (select count(*)::int from flagged where seq is not null) as inserted,
        coalesce((select json_agg(json_build_array(seq, id::text)) from flagged where qc), '[]'::json) as stored,
        coalesce((select json_agg(json_build_array(id::text, use_case_id, task_definition_id, unique_id)) from flagged where seq is null),
          '[]'::json) as replaced`;
    return [
      kind,
      {
        create: statement(
          `performance_${kind}_stage_create`,
          `create temporary table if not exists ${stage} (seq int, replace boolean, qc boolean, ` +
            `${all.map(([name, type]) => `${name} ${type}`).join(', ')}) on commit delete rows`,
        ),
        copy: `copy ${stage} (seq, replace, qc, ${names}) from stdin`,
        upsert: statement(`performance_${kind}_import_upsert`, upsert),
      },
    ];
  }),
) as Record<PerformanceKind, { create: ReturnType<typeof statement>; copy: string; upsert: ReturnType<typeof statement> }>;
