import {
  type FieldError,
  measurementType,
  type PerformanceKind,
  type QualityReviewRecordData,
  RECORD_DATE_TIME,
  RECORD_FIELDS,
  RECORD_LIMITS,
  type RecordFieldSpec,
  type RecordRule,
  REVIEW_TYPES,
  type UseCaseDto,
} from '@workline/contracts';

/**
 * The checks of quality and throughput records, in ONE place: the JSON endpoints and every CSV row (after
 * csvRowToInput has turned its cells into values) are checked by checkRecord, so a rule and its message are
 * the same on both channels. Which field follows which rule is the table of libs/contracts (RECORD_FIELDS),
 * from which the OpenAPI document's record schemas are derived as well. docs/performance-api.md lists them.
 */

export { type PerformanceKind } from '@workline/contracts';

/** What every checked record carries besides its kind's own fields. */
interface CheckedRecordBase {
  workstream_id: string;
  replace_duplicate: boolean;
}

/** A checked quality record, as stored (dates as ISO strings, absent optionals as null). */
export type QualityRecordInput = CheckedRecordBase & QualityReviewRecordData;

/** A checked throughput record; use case and task definition '' when not sent (see ThroughputRecord). */
export type ThroughputRecordInput = CheckedRecordBase &
  Pick<
    QualityReviewRecordData,
    'use_case_id' | 'task_definition_id' | 'dataset_id' | 'asset_id' | 'task_id' | 'unique_id' | 'task_url' | 'worker_id'
  > & {
    task_started_at: string | null;
    task_completed_at: string;
    duration_seconds: number | null;
    task_count: number;
    subtask_count: number | null;
    task_metadata: Record<string, string> | null;
  };

export interface RecordInputOf {
  quality: QualityRecordInput;
  throughput: ThroughputRecordInput;
}

/** What a record is checked against: the workstream in the path and its configuration. */
export interface WorkstreamConfig {
  id: string;
  account_id: string;
  use_cases: UseCaseDto[];
  qc_score_threshold: number;
  qc_sample_rate: number;
}

export type CheckResult<K extends PerformanceKind> = { ok: true; record: RecordInputOf[K] } | { ok: false; errors: FieldError[] };

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
const isLeapYear = (year: number) => (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
/** Date.UTC reads years 0–99 as 1900–1999: such dates are computed 400 years later (the calendar repeats), then moved back. */
const GREGORIAN_CYCLE_MS = 146_097 * 86_400_000;

/**
 * The instants a stored date-time may take: years 0001 to 9999 in UTC. PostgreSQL has no year 0000 (its
 * timestamptz refuses it, and `0001-01-01T00:30+01:00` is in it), and an ISO string past 9999 takes a sign.
 */
export const EARLIEST_DATE_TIME_MS = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
export const LATEST_DATE_TIME_MS = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/**
 * ISO 8601 date-time → ISO string (UTC, milliseconds; digits past them are cut, not rounded); undefined
 * when it is not one, not a real date, or outside years 0001–9999 once in UTC. On every record's timestamps
 * (two per CSV row): the form nearly every client sends, `YYYY-MM-DDTHH:MM:SSZ` or with `.mmm`, is checked
 * digit by digit and is its own ISO string; any other form goes through the pattern.
 */
export function parseDateTime(value: string): string | undefined {
  return canonicalUtc(value) ?? parseDateTimeByPattern(value);
}

const DIGIT_0 = 48;

/** The `count` ASCII digits of `value` from `at` as a number; -1 when any is not a digit. */
function digitsAt(value: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const digit = value.charCodeAt(i) - DIGIT_0;
    if (digit < 0 || digit > 9) return -1;
    n = n * 10 + digit;
  }
  return n;
}

/**
 * `value` as its ISO string when it is already in toISOString's form (or that form without milliseconds)
 * and a real date of years 0001–9999; undefined when it is not, whether valid in another form or not.
 */
function canonicalUtc(value: string): string | undefined {
  const length = value.length;
  if ((length !== 20 && length !== 24) || value[length - 1] !== 'Z') return undefined;
  if (value[4] !== '-' || value[7] !== '-' || value[10] !== 'T' || value[13] !== ':' || value[16] !== ':') return undefined;
  if (length === 24 && (value[19] !== '.' || digitsAt(value, 20, 3) < 0)) return undefined;
  const year = digitsAt(value, 0, 4);
  const month = digitsAt(value, 5, 2);
  const day = digitsAt(value, 8, 2);
  const hour = digitsAt(value, 11, 2);
  const minute = digitsAt(value, 14, 2);
  const second = digitsAt(value, 17, 2);
  if (year < 1 || month < 1 || month > 12 || day < 1 || hour < 0 || hour > 23 || minute < 0 || minute > 59) return undefined;
  if (second < 0 || second > 59 || day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return undefined;
  return length === 24 ? value : `${value.slice(0, 19)}.000Z`;
}

/** parseDateTime for every form the pattern takes (offsets, lower case, no seconds, 1–9 fraction digits). */
function parseDateTimeByPattern(value: string): string | undefined {
  const match = RECORD_DATE_TIME.exec(value);
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s, fraction, zone] = match;
  const year = +y;
  const month = +mo;
  const day = +d;
  const hour = +h;
  const minute = +mi;
  const second = s === undefined ? 0 : +s;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined;
  if (day > (month === 2 && isLeapYear(year) ? 29 : DAYS_IN_MONTH[month - 1])) return undefined;
  let offsetMinutes = 0;
  if (zone !== undefined && zone.length > 1) {
    const offsetHours = +zone.slice(1, 3);
    const offsetMins = +zone.slice(zone.length - 2);
    if (offsetHours > 23 || offsetMins > 59) return undefined;
    offsetMinutes = (zone[0] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMins);
  }
  const millis = fraction === undefined ? 0 : +(fraction.slice(1, 4) + '00').slice(0, 3);
  const early = year < 100;
  const time =
    Date.UTC(early ? year + 400 : year, month - 1, day, hour, minute, second, millis) -
    offsetMinutes * 60_000 -
    (early ? GREGORIAN_CYCLE_MS : 0);
  return time < EARLIEST_DATE_TIME_MS || time > LATEST_DATE_TIME_MS ? undefined : new Date(time).toISOString();
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const isFiniteNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);

/** What checkValue answers when a value breaks its rule: the messages saying what is wrong. */
class Refusal {
  constructor(readonly errors: FieldError[]) {}
}

const refuse = (field: string, message: string) => new Refusal([{ field, message: `${field} ${message}` }]);

/**
 * Checks one value against its rule: the normalised value, or a Refusal. A value is answered as it is, not
 * wrapped: a CSV import checks some ten values per row, a million rows.
 */
function checkValue(field: string, rule: RecordRule, value: unknown): unknown {
  switch (rule) {
    case 'id':
    case 'text': {
      if (typeof value !== 'string') return refuse(field, 'must be a string');
      const max = rule === 'id' ? RECORD_LIMITS.idLength : RECORD_LIMITS.textLength;
      if (rule === 'id' && !value.trim()) return refuse(field, 'must not be empty');
      if (value.length > max) return refuse(field, `must be at most ${max} characters`);
      return value;
    }
    case 'url': {
      if (typeof value !== 'string') return refuse(field, 'must be a string');
      if (value.length > RECORD_LIMITS.urlLength) return refuse(field, `must be at most ${RECORD_LIMITS.urlLength} characters`);
      if (!URL.canParse(value)) return refuse(field, 'must be an absolute URL');
      return value;
    }
    case 'datetime': {
      if (typeof value !== 'string') return refuse(field, 'must be an ISO 8601 date-time string, e.g. 2024-05-01T12:30:00Z');
      return parseDateTime(value) ?? refuse(field, 'must be an ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z');
    }
    case 'boolean':
      return typeof value === 'boolean' ? value : refuse(field, 'must be a boolean');
    case 'score':
      if (!isFiniteNumber(value)) return refuse(field, 'must be a number');
      return value >= 0 && value <= 1 ? value : refuse(field, 'must be between 0 and 1');
    case 'seconds':
      if (!isFiniteNumber(value)) return refuse(field, 'must be a number');
      return value >= 0 ? value : refuse(field, 'must be 0 or more');
    case 'count':
    case 'positiveCount': {
      const [least, refusal] = rule === 'count' ? [0, 'must be a non-negative integer'] : [1, 'must be an integer of 1 or more'];
      if (!(Number.isSafeInteger(value) && (value as number) >= least)) return refuse(field, refusal);
      return (value as number) <= RECORD_LIMITS.maxCount ? value : refuse(field, `must be at most ${RECORD_LIMITS.maxCount}`);
    }
    case 'reviewType':
      return typeof value === 'string' && (REVIEW_TYPES as readonly string[]).includes(value)
        ? value
        : refuse(field, `must be one of: ${REVIEW_TYPES.join(', ')}`);
    case 'countMap':
    case 'stringMap':
    case 'scalarMap':
      return checkMap(field, rule, value);
  }
}

function checkMap(field: string, rule: 'countMap' | 'stringMap' | 'scalarMap', value: unknown): unknown {
  if (!isPlainObject(value)) return refuse(field, 'must be an object');
  const entries = Object.entries(value);
  if (entries.length > RECORD_LIMITS.mapKeys) return refuse(field, `must have at most ${RECORD_LIMITS.mapKeys} keys`);
  const errors: FieldError[] = [];
  for (const [key, item] of entries) {
    const path = `${field}.${key}`;
    const measurement = rule === 'scalarMap' ? measurementType(key) : undefined;
    if (!key.trim() || key.length > RECORD_LIMITS.mapKeyLength) {
      errors.push({ field: path, message: `${field} keys must be 1 to ${RECORD_LIMITS.mapKeyLength} characters long` });
    } else if (rule === 'countMap' && !(Number.isSafeInteger(item) && (item as number) >= 0)) {
      errors.push({ field: path, message: `${path} must be a non-negative integer` });
    } else if (rule === 'stringMap' && typeof item !== 'string') {
      errors.push({ field: path, message: `${path} must be a string` });
    } else if (measurement === 'number' && !isFiniteNumber(item)) {
      errors.push({ field: path, message: `${path} must be a number` });
    } else if (measurement === 'string' && typeof item !== 'string') {
      errors.push({ field: path, message: `${path} must be a string` });
    } else if (rule === 'scalarMap' && !(typeof item === 'string' || typeof item === 'boolean' || isFiniteNumber(item))) {
      errors.push({ field: path, message: `${path} must be a string, a number or a boolean` });
    } else if (typeof item === 'string' && item.length > RECORD_LIMITS.mapValueLength) {
      errors.push({ field: path, message: `${path} must be at most ${RECORD_LIMITS.mapValueLength} characters` });
    }
  }
  return errors.length ? new Refusal(errors) : value;
}

/** RECORD_FIELDS as entries, listed once: a CSV import checks a million rows against them. */
const FIELD_ENTRIES = {
  quality: Object.entries(RECORD_FIELDS.quality),
  throughput: Object.entries(RECORD_FIELDS.throughput),
} satisfies Record<PerformanceKind, [string, RecordFieldSpec][]>;

/**
 * Per kind, every field null, in RECORD_FIELDS order: a checked record starts as a copy of it. An object given its
 * twenty-odd properties one by one under computed names is turned into a hash table by V8 (every later read
 * a lookup); a spread copy of this one keeps the fixed layout.
 */
const EMPTY_VALUES = {
  quality: Object.fromEntries(FIELD_ENTRIES.quality.map(([field]) => [field, null])),
  throughput: Object.fromEntries(FIELD_ENTRIES.throughput.map(([field]) => [field, null])),
} satisfies Record<PerformanceKind, Record<string, null>>;

/**
 * Checks a record body (JSON, or a CSV row turned into values) for the workstream in the path.
 * `null` counts as not sent. Unknown fields are refused, like everywhere else in the API.
 */
export function checkRecord<K extends PerformanceKind>(kind: K, body: unknown, workstream: WorkstreamConfig): CheckResult<K> {
  if (!isPlainObject(body)) return { ok: false, errors: [{ field: '(body)', message: 'the body must be a JSON object' }] };
  const fields = RECORD_FIELDS[kind];
  const errors: FieldError[] = [];
  const values: Record<string, unknown> = { ...EMPTY_VALUES[kind] };
  for (const key of Object.keys(body)) {
    if (!(key in fields)) errors.push({ field: key, message: `property ${key} should not exist` });
  }
  for (const [field, spec] of FIELD_ENTRIES[kind]) {
    const raw = body[field];
    if (raw === undefined || raw === null) {
      if (spec.required) errors.push({ field, message: `${field} is required` });
      continue;
    }
    const checked = checkValue(field, spec.rule, raw);
    if (checked instanceof Refusal) errors.push(...checked.errors);
    else values[field] = checked;
  }
  if (values.workstream_id !== null && values.workstream_id !== undefined && values.workstream_id !== workstream.id) {
    errors.push({ field: 'workstream_id', message: `workstream_id must equal the workstream in the path (${workstream.id})` });
  }
  errors.push(...checkConfiguration(kind, values, workstream));
  if (kind === 'throughput') errors.push(...deriveTiming(values));
  if (errors.length) return { ok: false, errors };
  values.workstream_id = workstream.id;
  values.replace_duplicate = values.replace_duplicate ?? true;
  if (kind === 'quality') values.errors = values.errors ?? {};
  if (kind === 'throughput') {
    values.use_case_id = values.use_case_id ?? '';
    values.task_definition_id = values.task_definition_id ?? '';
    values.task_count = values.task_count ?? 1;
  }
  return { ok: true, record: values as unknown as RecordInputOf[K] };
}

/** use_case_id and task_definition_id against the workstream's configuration (only when well-formed). */
function checkConfiguration(kind: PerformanceKind, values: Record<string, unknown>, workstream: WorkstreamConfig): FieldError[] {
  const useCaseId = values.use_case_id;
  const taskDefinitionId = values.task_definition_id;
  if (typeof useCaseId !== 'string') {
    if (kind === 'throughput' && typeof taskDefinitionId === 'string') {
      return [{ field: 'use_case_id', message: 'use_case_id is required when task_definition_id is sent' }];
    }
    return [];
  }
  const useCase = workstream.use_cases.find((u) => u.id === useCaseId);
  if (!useCase) return [{ field: 'use_case_id', message: `use_case_id "${useCaseId}" is not a use case of workstream ${workstream.id}` }];
  if (typeof taskDefinitionId === 'string' && !useCase.task_definition_ids.includes(taskDefinitionId)) {
    return [
      {
        field: 'task_definition_id',
        message: `task_definition_id "${taskDefinitionId}" is not a task definition of use case "${useCaseId}"`,
      },
    ];
  }
  return [];
}

/** Throughput timing: duration from start and completion when absent, start from duration, and agreement. */
function deriveTiming(values: Record<string, unknown>): FieldError[] {
  const started = typeof values.task_started_at === 'string' ? Date.parse(values.task_started_at) : undefined;
  const completed = typeof values.task_completed_at === 'string' ? Date.parse(values.task_completed_at) : undefined;
  const duration = typeof values.duration_seconds === 'number' ? values.duration_seconds : undefined;
  if (completed === undefined) return [];
  if (started !== undefined && started > completed) {
    return [{ field: 'task_started_at', message: 'task_started_at must not be after task_completed_at' }];
  }
  if (started !== undefined && duration !== undefined) {
    const between = (completed - started) / 1000;
    if (Math.abs(between - duration) > RECORD_LIMITS.durationToleranceSeconds) {
      return [
        {
          field: 'duration_seconds',
          message: `duration_seconds must match task_completed_at - task_started_at (${between} s) when all three are sent`,
        },
      ];
    }
  } else if (started !== undefined) {
    values.duration_seconds = (completed - started) / 1000;
  } else if (duration !== undefined) {
    const start = completed - Math.round(duration * 1000);
    if (!(start >= EARLIEST_DATE_TIME_MS)) {
      return [
        {
          field: 'duration_seconds',
          message:
            'duration_seconds is too long: the task would have started before 0001-01-01T00:00:00Z (task_completed_at - duration_seconds)',
        },
      ];
    }
    values.task_started_at = new Date(start).toISOString();
  }
  return [];
}
