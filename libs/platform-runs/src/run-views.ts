import { isoSeconds, isoSecondsOrNull, utcSeconds } from './time-format';

export const RunStatus = { Processing: 'Processing', Processed: 'Processed' } as const;
export const UnitStatus = { Processing: 'Processing', Completed: 'Completed', Flagged: 'Flagged', Aborted: 'Aborted' } as const;
export type UnitStatusValue = (typeof UnitStatus)[keyof typeof UnitStatus];

/** What the views need of a run and its units (rows as stored). */
export interface RunRecord {
  id: string;
  lineId: string;
  status: string;
  createdAt: Date;
  processedAt: Date | null;
}

export interface UnitRecord {
  input: unknown;
  output: unknown;
  status: string;
  createdAt: Date;
  processedAt: Date | null;
}

type Json = Record<string, unknown>;

const objectOr = (value: unknown): Json => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Json) : {});

/** v4 unit result: output is empty unless the unit completed. */
export const v4Unit = (unit: UnitRecord) => ({
  input: objectOr(unit.input),
  output: unit.status === UnitStatus.Completed ? objectOr(unit.output) : {},
  meta: { status: unit.status, created_at: isoSeconds(unit.createdAt), processed_at: isoSecondsOrNull(unit.processedAt) },
});

/** v4 run, as GET /v4/runs/:id answers it and as its callback posts it (the same schema). */
export const v4Run = (run: RunRecord, units: UnitRecord[]) => ({
  id: run.id,
  line_id: run.lineId,
  status: run.status,
  created_at: isoSeconds(run.createdAt),
  processed_at: isoSecondsOrNull(run.processedAt),
  units: units.map(v4Unit),
});

export const v4Created = (run: RunRecord) => ({
  id: run.id,
  line_id: run.lineId,
  status: run.status,
  created_at: isoSeconds(run.createdAt),
});

/** v3 names: In-Progress/Completed for the batch; a unit not finished yet reads In-Progress. */
const v3BatchStatus = (run: RunRecord) => (run.status === RunStatus.Processed ? 'Completed' : 'In-Progress');
const v3UnitStatus = (unit: UnitRecord) => (unit.status === UnitStatus.Processing ? 'In-Progress' : unit.status);

/**
 * v3 resource: the input keys (identifier included when given), then the output keys, then extra. An
 * output key never replaces an input key or `extra`: the input is what the client sent and must come back.
 */
export function v3Resource(unit: UnitRecord): Json {
  const input = objectOr(unit.input);
  const output = unit.status === UnitStatus.Completed ? objectOr(unit.output) : {};
  const resource: Json = { ...input };
  for (const [key, value] of Object.entries(output)) if (!(key in resource) && key !== 'extra') resource[key] = value;
  resource.extra = { status: v3UnitStatus(unit) };
  return resource;
}

export const v3Created = (run: RunRecord) => ({
  template_id: run.lineId,
  task_id: run.id,
  status: v3BatchStatus(run),
  started_at: isoSeconds(run.createdAt),
});

/** GET /v3/tasks/{task_id}: YYYY-MM-DDTHH:MM:SSZ and finished_at (spec: kept for backward compatibility). */
export const v3Polled = (run: RunRecord, units: UnitRecord[]) => ({
  task_id: run.id,
  template_id: run.lineId,
  status: v3BatchStatus(run),
  started_at: isoSeconds(run.createdAt),
  finished_at: isoSecondsOrNull(run.processedAt),
  resources: units.map(v3Resource),
});

/** The v3 callback: completed_at and timestamps as YYYY-MM-DD HH:MM:SS UTC. */
export const v3Callback = (run: RunRecord, units: UnitRecord[]) => ({
  task_id: run.id,
  template_id: run.lineId,
  status: v3BatchStatus(run),
  started_at: utcSeconds(run.createdAt),
  completed_at: run.processedAt ? utcSeconds(run.processedAt) : null,
  resources: units.map(v3Resource),
});
