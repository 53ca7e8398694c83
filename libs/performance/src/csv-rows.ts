import { type FieldError, measurementType, type PerformanceKind, RECORD_FIELDS } from '@workline/contracts';
import type { Parser } from 'csv-parse';

/**
 * CSV rows → record bodies for checkRecord (docs/csv-formats.md). A row's cells become the values the
 * JSON body would carry; checking stays in record-rules so both channels share every rule and message.
 */

/** Map fields are sent as one column per key: `errors.<type>`, `metadata.<key>`, `measurements.<key>`. */
export const CSV_MAP_PREFIXES: Record<PerformanceKind, Record<string, string>> = {
  quality: { 'errors.': 'errors', 'metadata.': 'review_metadata', 'measurements.': 'review_measurements' },
  throughput: { 'metadata.': 'task_metadata' },
};

export type CsvColumn = { field: string; key?: undefined } | { field: string; key: string };

const MAP_RULES = new Set(['countMap', 'stringMap', 'scalarMap']);

/**
 * Longest number cell, in characters (spaces around it not counted): far more than a double needs
 * (17 significant digits, a sign, a point and an exponent), short enough that a row of huge "numbers" is
 * refused at once with a message saying why.
 */
export const CSV_NUMBER_MAX_CHARS = 64;

/** Reads the header row; an error (naming the columns) makes the whole upload fail before any row. */
export function csvColumns(kind: PerformanceKind, header: string[]): { columns: CsvColumn[] } | { error: string } {
  const fields = RECORD_FIELDS[kind];
  const prefixes = CSV_MAP_PREFIXES[kind];
  const columns: CsvColumn[] = [];
  const unknown: string[] = [];
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const raw of header) {
    const name = raw.trim();
    if (seen.has(name)) repeated.add(name);
    seen.add(name);
    const prefix = Object.keys(prefixes).find((p) => name.startsWith(p) && name.length > p.length);
    if (prefix) columns.push({ field: prefixes[prefix], key: name.slice(prefix.length) });
    else if (name in fields && !MAP_RULES.has(fields[name].rule)) columns.push({ field: name });
    else unknown.push(name || '(empty)');
  }
  if (unknown.length) {
    const maps = Object.keys(prefixes)
      .map((p) => `${p}<key>`)
      .join(', ');
    return { error: `unknown CSV column(s): ${unknown.join(', ')} (columns are the record's field names, plus ${maps})` };
  }
  if (repeated.size) return { error: `CSV column(s) listed twice: ${[...repeated].join(', ')}` };
  const missing = Object.entries(fields)
    .filter(([name, spec]) => spec.required && name !== 'workstream_id' && !seen.has(name))
    .map(([name]) => name);
  if (missing.length) return { error: `CSV header lacks required column(s): ${missing.join(', ')}` };
  return { columns };
}

const [PLUS, MINUS, POINT, ZERO, NINE, UPPER_E, LOWER_E] = ['+', '-', '.', '0', '9', 'E', 'e'].map((c) => c.charCodeAt(0));

/**
 * Is `text` a number in decimal notation (`0.75`, `3`, `-1e-2`, `.5`, `5.`)? One pass from left to right
 * that reads each character at most once, so the time is linear in the length whatever the text. The
 * regular expression this replaces (`^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$`) accepted the same language
 * but backtracked quadratically on a long run of digits followed by anything else (60,000 digits: seconds
 * of CPU, during which the service answered nothing). Takes any string-like value so a test can count reads.
 */
export function isDecimalNumber(text: Pick<string, 'length' | 'charCodeAt'>): boolean {
  const end = text.length;
  let i = 0;
  let code = end > 0 ? text.charCodeAt(0) : -1;
  const advance = () => {
    i++;
    code = i < end ? text.charCodeAt(i) : -1;
  };
  const digitRun = () => {
    const start = i;
    while (code >= ZERO && code <= NINE) advance();
    return i - start;
  };
  if (code === PLUS || code === MINUS) advance();
  let digits = digitRun();
  if (code === POINT) {
    advance();
    digits += digitRun();
  }
  if (digits === 0) return false;
  if (code === LOWER_E || code === UPPER_E) {
    advance();
    if (code === PLUS || code === MINUS) advance();
    if (digitRun() === 0) return false;
  }
  return i === end;
}

/** A CSV row turned into the body the JSON endpoint would get, and what its cells alone make wrong. */
export interface CsvRowInput {
  body: Record<string, unknown>;
  /** Cells no rule can accept (a number cell longer than CSV_NUMBER_MAX_CHARS); their fields are left out of body. */
  errors: FieldError[];
}

/** The number a cell holds; undefined when it holds none (or is longer than CSV_NUMBER_MAX_CHARS). */
function cellNumber(cell: string): number | undefined {
  const text = cell.trim();
  return text.length <= CSV_NUMBER_MAX_CHARS && isDecimalNumber(text) ? Number(text) : undefined;
}

/** One row's cells → a body. Empty cells are "not sent"; numbers, booleans and maps are read from text. */
export function csvRowToInput(kind: PerformanceKind, columns: CsvColumn[], cells: string[]): CsvRowInput {
  const fields = RECORD_FIELDS[kind];
  const body: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  /** A number field's cell: its number, else its text for the field's rule to name; nothing when too long. */
  const numberCell = (field: string, cell: string): number | string | undefined => {
    if (cell.trim().length <= CSV_NUMBER_MAX_CHARS) return cellNumber(cell) ?? cell;
    errors.push({ field, message: `${field} must be a number of at most ${CSV_NUMBER_MAX_CHARS} characters` });
    return undefined;
  };
  columns.forEach((column, i) => {
    const cell = cells[i] ?? '';
    if (cell === '') return;
    if (column.key !== undefined) {
      const rule = fields[column.field].rule;
      const map = (body[column.field] ??= {}) as Record<string, unknown>;
      if (rule === 'countMap') {
        const value = numberCell(`${column.field}.${column.key}`, cell);
        if (value !== undefined) map[column.key] = value;
      } else if (rule === 'scalarMap') {
        // A measurement is a number when the cell is one, otherwise text (held to the text length limit); a label
        // (attribute_<n>_label) is text whatever it reads like.
        map[column.key] = measurementType(column.key) === 'string' ? cell : (cellNumber(cell) ?? cell);
      } else {
        map[column.key] = cell;
      }
      return;
    }
    switch (fields[column.field].rule) {
      case 'score':
      case 'seconds':
      case 'count':
      case 'positiveCount': {
        const value = numberCell(column.field, cell);
        if (value !== undefined) body[column.field] = value;
        return;
      }
      case 'boolean': {
        const word = cell.trim().toLowerCase();
        body[column.field] = word === 'true' ? true : word === 'false' ? false : cell;
        return;
      }
      case 'datetime':
        body[column.field] = cell.trim();
        return;
      default:
        body[column.field] = cell;
    }
  });
  return { body, errors };
}

/**
 * How an upload's file is read (its size limit apart): a byte-order mark skipped, rows of any length (a
 * row with the wrong number of fields is refused with its line, not the whole file), blank lines skipped.
 */
export const CSV_PARSE_OPTIONS = { bom: true, relax_column_count: true, skip_empty_lines: true } as const;

/**
 * The line each record of `parser` ends on (csv-parse's `info.lines`, which counts the lines inside quoted
 * cells), in the order the records are read: taken from the parser's running count as it pushes each record.
 * The `info` option gives the same number but builds two objects per record for it: 2 ms of CPU per 1,000
 * rows, about a fifteenth of what an import costs the service.
 */
export function recordLines(parser: Parser): () => number {
  const lines: number[] = [];
  let next = 0;
  const push = parser.push.bind(parser);
  parser.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk !== null) lines.push(parser.info.lines);
    return push(chunk, encoding);
  };
  return () => {
    const line = lines[next++];
    // Read lines are dropped now and then, so the queue holds only what the parser is ahead by.
    if (next === 4096) {
      lines.splice(0, next);
      next = 0;
    }
    return line;
  };
}
