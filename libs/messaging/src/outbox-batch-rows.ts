/**
 * Where a batch row's events are split: one event a line, its fields by tabs. JSON.stringify escapes every
 * line break and tab inside a string, and event ids and ISO times hold none, so neither can occur in a field.
 */
export const EVENT_SEPARATOR = '\n';
export const FIELD_SEPARATOR = '\t';

/**
 * Most characters of events one batch row holds: below V8's large-object size (128 KB for a one-byte string),
 * so neither the row's text as the writer joins it nor as the relay reads it back is a large object. Each of
 * those gets pages mapped for it and unmapped when it is collected, and on a VM every page touched afresh
 * costs a fault: a CSV import's 1 MB rows cost it about 14 µs of CPU per QC event that way (docs/benchmarks.md,
 * "Outbox rows below V8's large-object size"). An event larger than this alone gets a row of its own.
 */
export const BATCH_ROW_MAX_CHARS = 100_000;

/** Lines in order, cut into runs of at most maxChars characters (separators counted); a longer line is a run alone. */
export function batchRowsOf(lines: string[], maxChars = BATCH_ROW_MAX_CHARS): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let chars = 0;
  for (const line of lines) {
    if (row.length && chars + 1 + line.length > maxChars) {
      rows.push(row);
      row = [];
      chars = 0;
    }
    chars += (row.length ? 1 : 0) + line.length;
    row.push(line);
  }
  if (row.length) rows.push(row);
  return rows;
}
