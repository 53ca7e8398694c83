import { FIELDS, type PerformanceKind } from './record-rules';

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
const NUMBER = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** Reads the header row; an error (naming the columns) makes the whole upload fail before any row. */
export function csvColumns(kind: PerformanceKind, header: string[]): { columns: CsvColumn[] } | { error: string } {
  const fields = FIELDS[kind];
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
    const maps = Object.keys(prefixes).map((p) => `${p}<key>`).join(', ');
    return { error: `unknown CSV column(s): ${unknown.join(', ')} (columns are the record's field names, plus ${maps})` };
  }
  if (repeated.size) return { error: `CSV column(s) listed twice: ${[...repeated].join(', ')}` };
  const missing = Object.entries(fields).filter(([name, spec]) => spec.required && name !== 'workstream_id' && !seen.has(name)).map(([name]) => name);
  if (missing.length) return { error: `CSV header lacks required column(s): ${missing.join(', ')}` };
  return { columns };
}

const asNumber = (cell: string): number | string => (NUMBER.test(cell.trim()) ? Number(cell.trim()) : cell);

/** One row's cells → a body. Empty cells are "not sent"; numbers, booleans and maps are read from text. */
export function csvRowToInput(kind: PerformanceKind, columns: CsvColumn[], cells: string[]): Record<string, unknown> {
  const fields = FIELDS[kind];
  const body: Record<string, unknown> = {};
  columns.forEach((column, i) => {
    const cell = cells[i] ?? '';
    if (cell === '') return;
    if (column.key !== undefined) {
      const rule = fields[column.field].rule;
      const map = (body[column.field] ??= {}) as Record<string, unknown>;
      map[column.key] = rule === 'countMap' || rule === 'scalarMap' ? asNumber(cell) : cell;
      return;
    }
    switch (fields[column.field].rule) {
      case 'score':
      case 'seconds':
      case 'count':
      case 'positiveCount':
        body[column.field] = asNumber(cell);
        return;
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
  return body;
}
