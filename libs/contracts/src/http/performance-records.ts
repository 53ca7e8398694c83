import type { JsonSchema } from '../asyncapi/json-schema';
import { PERFORMANCE_UPLOAD_KINDS, type PerformanceUploadKind } from './performance.dto';

/**
 * The fields of quality and throughput records and the rule each follows, stated ONCE, here: the performance
 * service checks JSON bodies and CSV rows against this table (libs/performance, record-rules.ts: the checks and
 * their messages), and the OpenAPI document's record schemas are derived from it (recordSchema), so the
 * documented fields, types and bounds are the ones the service applies. docs/performance-api.md lists them.
 */

export const PERFORMANCE_KINDS = PERFORMANCE_UPLOAD_KINDS;
export type PerformanceKind = PerformanceUploadKind;

export const REVIEW_TYPES = ['QA', 'QC', 'Spot Check', 'Others'] as const;

export const RECORD_LIMITS = {
  idLength: 200,
  urlLength: 2000,
  textLength: 10_000,
  mapKeys: 100,
  mapKeyLength: 100,
  mapValueLength: 1000,
  /** Largest count field (task_count, task_review_count, …): the columns are PostgreSQL integers. */
  maxCount: 2_147_483_647,
  /** Tolerance between duration_seconds and task_completed_at - task_started_at when all three are sent. */
  durationToleranceSeconds: 1,
} as const;

export type RecordRule =
  | 'id' // non-empty string, at most idLength
  | 'text' // string, at most textLength
  | 'url' // absolute URL
  | 'datetime' // ISO 8601 date-time
  | 'boolean'
  | 'score' // number in [0, 1]
  | 'seconds' // number >= 0
  | 'count' // integer >= 0
  | 'positiveCount' // integer >= 1
  | 'reviewType'
  | 'countMap' // {name: integer >= 0}
  | 'stringMap' // {key: string}
  | 'scalarMap'; // {key: string | number | boolean}

export interface RecordFieldSpec {
  rule: RecordRule;
  required?: boolean;
}

/** Fields that describe the task and the record in both kinds. */
const DESCRIPTIVE_FIELDS: Record<string, RecordFieldSpec> = {
  dataset_id: { rule: 'id' },
  asset_id: { rule: 'id' },
  task_id: { rule: 'id' },
  unique_id: { rule: 'id' },
  replace_duplicate: { rule: 'boolean' },
  task_url: { rule: 'url' },
};

/** Field name → rule, in the order of the spec's field list (also the column order of CSV templates). */
export const RECORD_FIELDS: Record<PerformanceKind, Record<string, RecordFieldSpec>> = {
  quality: {
    workstream_id: { rule: 'id', required: true },
    use_case_id: { rule: 'id', required: true },
    task_definition_id: { rule: 'id', required: true },
    ...DESCRIPTIVE_FIELDS,
    task_completed_at: { rule: 'datetime' },
    worker_id: { rule: 'id', required: true },
    review_completed_at: { rule: 'datetime', required: true },
    review_duration: { rule: 'seconds' },
    reviewed_by: { rule: 'id' },
    review_score: { rule: 'score', required: true },
    review_explanation: { rule: 'text' },
    errors: { rule: 'countMap' },
    review_type: { rule: 'reviewType' },
    task_review_count: { rule: 'count' },
    subtask_review_count: { rule: 'count' },
    review_metadata: { rule: 'stringMap' },
    review_measurements: { rule: 'scalarMap' },
  },
  throughput: {
    workstream_id: { rule: 'id' },
    use_case_id: { rule: 'id' },
    task_definition_id: { rule: 'id' },
    ...DESCRIPTIVE_FIELDS,
    worker_id: { rule: 'id', required: true },
    task_started_at: { rule: 'datetime' },
    task_completed_at: { rule: 'datetime', required: true },
    duration_seconds: { rule: 'seconds' },
    task_count: { rule: 'positiveCount' },
    subtask_count: { rule: 'count' },
    task_metadata: { rule: 'stringMap' },
  },
};

/**
 * The date-time forms a record takes: ISO 8601 with a time, `YYYY-MM-DDTHH:MM[:SS[.fraction]][Z|±HH:MM|±HHMM]`
 * (T and Z in either case; no zone is UTC). The service also checks that it is a real calendar date of years
 * 0001–9999 once in UTC. Broader than JSON Schema's `date-time` (RFC 3339 wants seconds and a zone), which
 * would refuse forms the service accepts: the schemas state this pattern instead.
 */
export const RECORD_DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?([Zz]|[+-]\d{2}:?\d{2})?$/;

/**
 * review_measurements keys whose type the spec gives: `attribute_1_count` a number and `attribute_1_label` a
 * string, and the same keys of the other attributes; any other key takes a string, a number or a boolean.
 */
export const MEASUREMENT_KEY_TYPES: readonly { pattern: RegExp; type: 'number' | 'string' }[] = [
  { pattern: /^attribute_\d+_count$/, type: 'number' },
  { pattern: /^attribute_\d+_label$/, type: 'string' },
];

/** The type a review_measurements key must hold, when the spec gives one. */
export function measurementType(key: string): 'number' | 'string' | undefined {
  if (!key.startsWith('attribute_')) return undefined;
  return MEASUREMENT_KEY_TYPES.find(({ pattern }) => pattern.test(key))?.type;
}

// ---- the JSON Schemas of the records (OpenAPI), derived from the table above ----

/** A non-empty string: JavaScript's trim() and \S agree on what white space is. */
const NOT_BLANK = '\\S';
const MAP_KEY: JsonSchema = { type: 'string', minLength: 1, maxLength: RECORD_LIMITS.mapKeyLength, pattern: NOT_BLANK };
const map = (values: JsonSchema, extra: JsonSchema = {}): JsonSchema => ({
  type: 'object',
  maxProperties: RECORD_LIMITS.mapKeys,
  propertyNames: MAP_KEY,
  additionalProperties: values,
  ...extra,
});
const mapString: JsonSchema = { type: 'string', maxLength: RECORD_LIMITS.mapValueLength };

const RULE_SCHEMAS: Record<RecordRule, JsonSchema> = {
  id: { type: 'string', maxLength: RECORD_LIMITS.idLength, pattern: NOT_BLANK },
  text: { type: 'string', maxLength: RECORD_LIMITS.textLength },
  url: { type: 'string', format: 'uri', maxLength: RECORD_LIMITS.urlLength, description: 'An absolute URL' },
  datetime: {
    type: 'string',
    pattern: RECORD_DATE_TIME.source,
    description: 'ISO 8601 date-time, e.g. 2024-05-01T12:30:00Z (seconds, fraction and zone optional; no zone is UTC)',
  },
  boolean: { type: 'boolean' },
  score: { type: 'number', minimum: 0, maximum: 1 },
  seconds: { type: 'number', minimum: 0 },
  count: { type: 'integer', minimum: 0, maximum: RECORD_LIMITS.maxCount },
  positiveCount: { type: 'integer', minimum: 1, maximum: RECORD_LIMITS.maxCount },
  reviewType: { type: 'string', enum: [...REVIEW_TYPES] },
  countMap: map({ type: 'integer', minimum: 0, maximum: Number.MAX_SAFE_INTEGER }),
  stringMap: map(mapString),
  scalarMap: map(
    { type: ['string', 'number', 'boolean'], maxLength: RECORD_LIMITS.mapValueLength },
    {
      patternProperties: Object.fromEntries(
        MEASUREMENT_KEY_TYPES.map(({ pattern, type }) => [pattern.source, type === 'string' ? mapString : { type }]),
      ),
    },
  ),
};

/** `null` counts as "not sent": an optional field's schema takes it too. */
function orNull(schema: JsonSchema): JsonSchema {
  const type = schema.type as string;
  return { ...schema, type: [type, 'null'], ...(schema.enum ? { enum: [...schema.enum, null] } : {}) };
}

/** What the service checks beyond what a JSON Schema can state, per kind (the schema's description says it). */
const BEYOND_THE_SCHEMA: Record<PerformanceKind, string> = {
  quality:
    "workstream_id equals the path's; use_case_id is a use case of the workstream and task_definition_id one of its task definitions",
  throughput:
    "workstream_id, when sent, equals the path's; use_case_id is a use case of the workstream (required when task_definition_id " +
    'is sent) and task_definition_id one of its task definitions; task_started_at is not after task_completed_at, and ' +
    `duration_seconds agrees with them (±${RECORD_LIMITS.durationToleranceSeconds} s) when all three are sent`,
};

/** The JSON Schema of a record body of `kind`, derived from RECORD_FIELDS. */
export function recordSchema(kind: PerformanceKind): JsonSchema {
  const fields = Object.entries(RECORD_FIELDS[kind]);
  return {
    type: 'object',
    description:
      `A ${kind === 'quality' ? 'quality review' : 'throughput (completed-task)'} record (docs/performance-api.md). null counts as ` +
      `not sent; unknown fields are refused. Also checked by the service: date-times are real dates of years 0001-9999; ` +
      `${BEYOND_THE_SCHEMA[kind]}.`,
    properties: Object.fromEntries(
      fields.map(([name, spec]) => [name, spec.required ? RULE_SCHEMAS[spec.rule] : orNull(RULE_SCHEMAS[spec.rule])]),
    ),
    required: fields.filter(([, spec]) => spec.required).map(([name]) => name),
    additionalProperties: false,
  };
}

/** The records' schemas by the name the OpenAPI document gives them. */
export const RECORD_SCHEMA_NAMES: Record<PerformanceKind, string> = { quality: 'QualityReviewRecord', throughput: 'ThroughputRecord' };
