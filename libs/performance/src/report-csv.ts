import type { PerformanceReport, QualityReportGroup, ThroughputReportGroup } from '@workline/contracts';
import type { PerformanceKind } from './record-rules';

/**
 * Report CSV exports (docs/csv-formats.md, "Report CSVs"). Text cells can hold what a client sent
 * (worker_id, use case and task definition ids, error type names), and a spreadsheet runs a cell that
 * starts with one of these characters as a formula (CSV injection, OWASP).
 */
const FORMULA_START = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * One cell, RFC 4180 quoting. Text starting with a formula character gets a leading single quote and is
 * always quoted (OWASP's rule), so a spreadsheet shows it as text. Numbers are left alone: they are the
 * service's own aggregates, never client text, and a spreadsheet reads `-1` as a number, not a formula.
 */
export function csvCell(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return String(value);
  const neutralised = FORMULA_START.has(value.charAt(0));
  const text = neutralised ? `'${value}` : value;
  return neutralised || /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A report as CSV: a header row (the group_by name or `group`, then the figures), one row per group. */
export function reportCsv(kind: PerformanceKind, report: PerformanceReport<QualityReportGroup | ThroughputReportGroup>): string {
  const keyColumn = report.group_by ?? 'group';
  // Without group_by the one row is "all"; with it, an empty key means "none" (e.g. no use case sent).
  const noKey = report.group_by ? '' : 'all';
  let header: string[];
  let lines: (string | number | null)[][];
  if (kind === 'quality') {
    const groups = report.groups as QualityReportGroup[];
    const types = [...new Set(groups.flatMap((g) => Object.keys(g.errors)))].sort();
    header = [keyColumn, 'count', 'mean_score', 'p50_score', 'p90_score', 'min_score', 'max_score', ...types.map((t) => `errors.${t}`)];
    lines = groups.map((g) => [
      g.key ?? noKey,
      g.count,
      g.mean_score,
      g.p50_score,
      g.p90_score,
      g.min_score,
      g.max_score,
      ...types.map((t) => g.errors[t] ?? 0),
    ]);
  } else {
    const groups = report.groups as ThroughputReportGroup[];
    header = [keyColumn, 'records', 'tasks', 'subtasks', 'duration_seconds', 'mean_duration_seconds', 'tasks_per_hour'];
    lines = groups.map((g) => [
      g.key ?? noKey,
      g.records,
      g.tasks,
      g.subtasks,
      g.duration_seconds,
      g.mean_duration_seconds,
      g.tasks_per_hour,
    ]);
  }
  return [header, ...lines].map((line) => line.map(csvCell).join(',')).join('\r\n') + '\r\n';
}
