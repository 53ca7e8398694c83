import { type PerformanceKind, RECORD_FIELDS, recordSchema } from '@workline/contracts';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { checkRecord } from './record-rules';
import { RULES_WORKSTREAM as workstream } from './testing/workstreams';

/**
 * The OpenAPI document's record schemas (recordSchema, derived from libs/contracts' RECORD_FIELDS) and the
 * service's checks (checkRecord) say yes and no to the same records: every field of each kind given each value
 * of a table of good and bad values, every required field left out. What a JSON Schema cannot state (the
 * workstream's configuration, a calendar date, the timing of a throughput record) is listed apart: the schema
 * takes those records and the service refuses them, as the schema's description says.
 */

const GOOD: Record<PerformanceKind, Record<string, unknown>> = {
  quality: {
    workstream_id: 'ws-1',
    use_case_id: 'uc-1',
    task_definition_id: 'td-1',
    worker_id: 'ann@example.com',
    review_completed_at: '2024-05-01T12:00:00Z',
    review_score: 0.9,
  },
  throughput: { worker_id: 'bob@example.com', task_completed_at: '2024-06-01T00:00:00Z' },
};

const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));

/** Values good for some rules and bad for others: strings, date-times, URLs, numbers, booleans, maps, arrays. */
const VALUES: unknown[] = [
  'x',
  '',
  '   ',
  'a'.repeat(200),
  'a'.repeat(201),
  'a'.repeat(10_000),
  'a'.repeat(10_001),
  'https://example.com/tasks/1',
  `https://example.com/${'p'.repeat(1980)}`,
  `https://example.com/${'p'.repeat(1981)}`,
  'not a url',
  '2024-05-01T12:00:00Z',
  '2024-05-01T12:00Z',
  '2024-05-01T12:00:00',
  '2024-05-01t11:00:00.123z',
  '2024-05-01T12:00:00.1239+02:00',
  '2024-05-01T08:00:00-0130',
  '2024-05-01',
  '2024-05-01 12:00:00Z',
  'QA',
  'Spot Check',
  'qa',
  0,
  1,
  0.5,
  -1,
  1.5,
  7,
  2_147_483_647,
  2_147_483_648,
  true,
  false,
  'true',
  null,
  [],
  ['x'],
  {},
  { missing_box: 2 },
  { missing_box: -1 },
  { missing_box: 1.5 },
  { missing_box: 2 ** 53 },
  { note: 'text' },
  { note: 'n'.repeat(1000) },
  { note: 'n'.repeat(1001) },
  { '': 1 },
  { ' ': 'x' },
  { ['k'.repeat(101)]: 1 },
  keys(100),
  keys(101),
  { attribute_1_count: 3 },
  { attribute_1_count: '3' },
  { attribute_2_label: 'boxes' },
  { attribute_2_label: 2 },
  { other: true },
  { other: [1] },
  { other: null },
];

/** Fields the workstream's configuration decides about: they are checked apart (BEYOND below). */
const CONFIGURED = new Set(['workstream_id', 'use_case_id', 'task_definition_id']);

describe('the record schemas of the OpenAPI document agree with the service checks', () => {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
  const validators = { quality: ajv.compile(recordSchema('quality')), throughput: ajv.compile(recordSchema('throughput')) };
  const verdicts = (kind: PerformanceKind, record: unknown) => ({
    schema: validators[kind](record),
    service: checkRecord(kind, record, workstream).ok,
  });

  it.each(['quality', 'throughput'] as const)('%s: every field with every value of the table, and each required field left out', (kind) => {
    const disagreements: string[] = [];
    let refused = 0;
    const compare = (what: string, record: unknown) => {
      const { schema, service } = verdicts(kind, record);
      if (!service) refused++;
      if (schema !== service)
        disagreements.push(`${what}: schema ${schema ? 'takes' : 'refuses'} it, the service ${service ? 'takes' : 'refuses'} it`);
    };
    compare('the good record', GOOD[kind]);
    for (const [field, spec] of Object.entries(RECORD_FIELDS[kind])) {
      if (spec.required) {
        const { [field]: _left, ...without } = GOOD[kind];
        compare(`without ${field}`, without);
      }
      if (CONFIGURED.has(field)) continue;
      for (const value of VALUES) compare(`${field} = ${JSON.stringify(value).slice(0, 40)}`, { ...GOOD[kind], [field]: value });
    }
    compare('an unknown field', { ...GOOD[kind], colour: 'blue' });
    compare('an array body', [GOOD[kind]]);
    expect(disagreements).toEqual([]);
    // The table is not all good: most of it is refused, by both.
    expect(refused).toBeGreaterThan(VALUES.length * 3);
  });

  const BEYOND: [PerformanceKind, string, Record<string, unknown>][] = [
    ['quality', 'a workstream_id other than the path', { workstream_id: 'ws-2' }],
    ['quality', 'a use case the workstream lacks', { use_case_id: 'uc-9' }],
    ['quality', 'a task definition the use case lacks', { task_definition_id: 'td-9' }],
    ['quality', 'a date that is not in the calendar', { review_completed_at: '2023-02-29T00:00:00Z' }],
    ['quality', 'year 0000', { task_completed_at: '0000-06-01T00:00:00Z' }],
    ['throughput', 'a task definition without its use case', { task_definition_id: 'td-1' }],
    ['throughput', 'a start after the completion', { task_started_at: '2024-06-02T00:00:00Z' }],
    [
      'throughput',
      'a duration that disagrees with start and completion',
      { task_started_at: '2024-05-31T23:00:00Z', duration_seconds: 60 },
    ],
  ];

  it.each(BEYOND)('%s: %s is taken by the schema, refused by the service (said in the description)', (kind, _what, change) => {
    expect(verdicts(kind, { ...GOOD[kind], ...change })).toEqual({ schema: true, service: false });
  });

  it('states the fields, types, formats and required fields of the spec', () => {
    const quality = recordSchema('quality');
    expect(quality.required).toEqual([
      'workstream_id',
      'use_case_id',
      'task_definition_id',
      'worker_id',
      'review_completed_at',
      'review_score',
    ]);
    expect(quality.additionalProperties).toBe(false);
    expect(quality.properties?.review_score).toEqual({ type: 'number', minimum: 0, maximum: 1 });
    expect(quality.properties?.review_type).toEqual({ type: ['string', 'null'], enum: ['QA', 'QC', 'Spot Check', 'Others', null] });
    expect(quality.properties?.task_url).toMatchObject({ type: ['string', 'null'], format: 'uri' });
    expect(recordSchema('throughput').required).toEqual(['worker_id', 'task_completed_at']);
  });
});
