import fc from 'fast-check';
import { csvColumns, csvRowToInput } from './csv-rows';
import { checkRecord, parseDateTime } from './record-rules';
import { RULES_WORKSTREAM as workstream } from './testing/workstreams';

describe('parseDateTime', () => {
  it.each([
    ['2024-05-01T12:00:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00Z', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00', '2024-05-01T12:00:00.000Z'],
    ['2024-05-01T12:00:00.1239+02:00', '2024-05-01T10:00:00.123Z'],
    ['2024-05-01T12:00:00-0130', '2024-05-01T13:30:00.000Z'],
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['0001-01-01T00:00:00Z', '0001-01-01T00:00:00.000Z'],
    ['9999-12-31T23:59:59.9999Z', '9999-12-31T23:59:59.999Z'],
    ['2024-05-01T12:00:00.123Z', '2024-05-01T12:00:00.123Z'],
    ['2024-05-01t12:00:00.123z', '2024-05-01T12:00:00.123Z'],
  ])('reads %s as %s', (input, expected) => expect(parseDateTime(input)).toBe(expected));

  it.each([
    '2024-05-01',
    '2023-02-29T00:00:00Z',
    '2024-04-31T00:00:00Z',
    '2024-05-01T24:00:00Z',
    '2024-05-01T12:60:00Z',
    '2024-05-01 12:00:00Z',
    '2024-05-01T12:00:00+25:00',
    // Years PostgreSQL cannot store: 0000 (also reached from 0001 through an offset), and past 9999.
    '0000-06-01T00:00:00Z',
    '0001-01-01T00:30:00+01:00',
    '9999-12-31T23:30:00-01:00',
    'now',
  ])('refuses %s', (input) => expect(parseDateTime(input)).toBeUndefined());

  /** The first implementation: rebuilds the string and lets Date.parse read it (slow, plainly right). */
  function reference(value: string): string | undefined {
    const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?$/i.exec(value);
    if (!match) return undefined;
    const [, y, mo, d, h, mi, s = '00', fraction = '', zone = 'Z'] = match;
    const [year, month, day, hour, minute, second] = [y, mo, d, h, mi, s].map(Number);
    const daysInMonth = new Date(Date.UTC(2000 + (year % 400), month, 0)).getUTCDate();
    if (month < 1 || month > 12 || day < 1 || day > daysInMonth || hour > 23 || minute > 59 || second > 59) return undefined;
    const offset = zone.toUpperCase() === 'Z' ? 'Z' : zone.includes(':') ? zone : `${zone.slice(0, 3)}:${zone.slice(3)}`;
    if (offset !== 'Z' && (Number(offset.slice(1, 3)) > 23 || Number(offset.slice(4, 6)) > 59)) return undefined;
    const millis = (fraction + '000').slice(1, 4).padEnd(3, '0');
    const time = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}.${millis}${offset}`);
    const inRange = time >= Date.parse('0001-01-01T00:00:00Z') && time <= Date.parse('9999-12-31T23:59:59.999Z');
    return Number.isNaN(time) || !inRange ? undefined : new Date(time).toISOString();
  }

  it('reads every date-time as the reference does, valid or not (years 0000–9999, offsets, fractions, bad fields)', () => {
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    const dateTime = fc
      .record({
        year: fc.oneof(digits(4, 9999), digits(4, 120), fc.constantFrom('2000', '1900', '2024', '2023')),
        month: digits(2, 13),
        day: digits(2, 32),
        hour: digits(2, 25),
        minute: digits(2, 61),
        second: fc.option(digits(2, 61), { nil: undefined }),
        fraction: fc.option(fc.stringMatching(/^\d{1,9}$/), { nil: undefined }),
        zone: fc.option(
          fc.oneof(fc.constantFrom('Z', 'z'), fc.tuple(fc.constantFrom('+', '-'), digits(2, 25), fc.boolean(), digits(2, 61))),
          { nil: undefined },
        ),
      })
      .map(({ year, month, day, hour, minute, second, fraction, zone }) => {
        const time =
          second === undefined ? `${hour}:${minute}` : `${hour}:${minute}:${second}${fraction === undefined ? '' : `.${fraction}`}`;
        const offset = zone === undefined ? '' : typeof zone === 'string' ? zone : `${zone[0]}${zone[1]}${zone[2] ? ':' : ''}${zone[3]}`;
        return `${year}-${month}-${day}T${time}${offset}`;
      });
    fc.assert(
      fc.property(fc.oneof(dateTime, fc.string()), (value) => expect(parseDateTime(value)).toBe(reference(value))),
      { numRuns: 5_000 },
    );
  });

  it('reads the canonical UTC form (checked digit by digit, no pattern) as the reference does, valid or not', () => {
    const digits = (n: number, max: number) => fc.integer({ min: 0, max }).map((v) => String(v).padStart(n, '0'));
    const canonical = fc
      .tuple(
        fc.oneof(digits(4, 9999), fc.constantFrom('0000', '0001', '2000', '1900', '2023', '2024')),
        digits(2, 13),
        digits(2, 32),
        digits(2, 25),
        digits(2, 61),
        digits(2, 61),
        fc.constantFrom('', '.000', '.999', '.5x1', '.123', ',123'),
        fc.constantFrom('Z', 'z', 'Z ', ''),
        fc.constantFrom('-', '/'),
      )
      .map(([y, mo, d, h, mi, s, fraction, zone, dash]) => `${y}${dash}${mo}-${d}T${h}:${mi}:${s}${fraction}${zone}`);
    fc.assert(
      fc.property(canonical, (value) => expect(parseDateTime(value)).toBe(reference(value))),
      { numRuns: 5_000 },
    );
  });
});

describe('checkRecord', () => {
  /** A quality record with the required fields only. */
  const review = {
    workstream_id: 'ws-1',
    use_case_id: 'uc-1',
    task_definition_id: 'td-1',
    worker_id: 'w',
    review_completed_at: '2024-05-01T00:00:00Z',
    review_score: 1,
  };

  it('fills defaults for quality and throughput records', () => {
    const quality = checkRecord('quality', review, workstream);
    expect(quality).toMatchObject({ ok: true, record: { replace_duplicate: true, errors: {}, unique_id: null } });
    const throughput = checkRecord('throughput', { worker_id: 'w', task_completed_at: '2024-05-01T00:00:00Z' }, workstream);
    expect(throughput).toMatchObject({
      ok: true,
      record: { workstream_id: 'ws-1', use_case_id: '', task_definition_id: '', task_count: 1, duration_seconds: null },
    });
  });

  it('holds the measurement keys the spec types to their type: attribute_<n>_count a number, attribute_<n>_label a string', () => {
    const measured = (review_measurements: Record<string, unknown>) =>
      checkRecord('quality', { ...review, review_measurements }, workstream);
    expect(measured({ attribute_1_count: 3, attribute_1_label: 'car', attribute_12_count: 0.5, colour: 'red', seen: true })).toMatchObject({
      ok: true,
    });
    expect(measured({ attribute_1_count: 'three', attribute_1_label: 5, attribute_2_count: true, attribute_2_label: false })).toEqual({
      ok: false,
      errors: [
        { field: 'review_measurements.attribute_1_count', message: 'review_measurements.attribute_1_count must be a number' },
        { field: 'review_measurements.attribute_1_label', message: 'review_measurements.attribute_1_label must be a string' },
        { field: 'review_measurements.attribute_2_count', message: 'review_measurements.attribute_2_count must be a number' },
        { field: 'review_measurements.attribute_2_label', message: 'review_measurements.attribute_2_label must be a string' },
      ],
    });
    // Keys of other shapes keep the open rule: a string, a number or a boolean.
    expect(measured({ attribute_count: 'many', my_attribute_1_label: 7 })).toMatchObject({ ok: true });
  });

  it('refuses counts past what the integer columns hold', () => {
    const completed = { worker_id: 'w', task_completed_at: '2024-05-01T00:00:00Z' };
    expect(checkRecord('throughput', { ...completed, task_count: 2_147_483_647 }, workstream)).toMatchObject({ ok: true });
    expect(checkRecord('throughput', { ...completed, task_count: 2_147_483_648, subtask_count: 3e9 }, workstream)).toEqual({
      ok: false,
      errors: [
        { field: 'task_count', message: 'task_count must be at most 2147483647' },
        { field: 'subtask_count', message: 'subtask_count must be at most 2147483647' },
      ],
    });
  });

  it('derives task_started_at from duration_seconds, and refuses a duration that would start the task before year 0001', () => {
    const completed = { worker_id: 'w', task_completed_at: '2024-05-01T00:00:00Z' };
    expect(checkRecord('throughput', { ...completed, duration_seconds: 90 }, workstream)).toMatchObject({
      ok: true,
      record: { task_started_at: '2024-04-30T23:58:30.000Z', duration_seconds: 90 },
    });
    for (const duration_seconds of [1e308, 2024 * 366 * 86_400]) {
      expect(checkRecord('throughput', { ...completed, duration_seconds }, workstream)).toEqual({
        ok: false,
        errors: [
          {
            field: 'duration_seconds',
            message:
              'duration_seconds is too long: the task would have started before 0001-01-01T00:00:00Z (task_completed_at - ' +
              'duration_seconds)',
          },
        ],
      });
    }
  });
});

/** The columns a quality CSV must have (the required fields but workstream_id, which the upload gives). */
const REQUIRED_QUALITY_COLUMNS = ['use_case_id', 'task_definition_id', 'worker_id', 'review_completed_at', 'review_score'];

describe('CSV rows', () => {
  it('maps prefixed columns to map fields and reads numbers and booleans', () => {
    const header = csvColumns('quality', [
      ...REQUIRED_QUALITY_COLUMNS,
      'replace_duplicate',
      'errors.a',
      'metadata.m',
      'measurements.n',
      'measurements.l',
    ]);
    if ('error' in header) throw new Error(header.error);
    const { body, errors } = csvRowToInput('quality', header.columns, [
      'uc-1',
      'td-1',
      'w',
      ' 2024-05-01T00:00:00Z ',
      '0.5',
      'FALSE',
      '3',
      '7',
      '1.5',
      'car',
    ]);
    expect(errors).toEqual([]);
    expect(body).toEqual({
      use_case_id: 'uc-1',
      task_definition_id: 'td-1',
      worker_id: 'w',
      review_completed_at: '2024-05-01T00:00:00Z',
      review_score: 0.5,
      replace_duplicate: false,
      errors: { a: 3 },
      review_metadata: { m: '7' },
      review_measurements: { n: 1.5, l: 'car' },
    });
  });

  it('leaves empty cells out and keeps unreadable numbers as text for the rules to name', () => {
    const header = csvColumns('throughput', ['worker_id', 'task_completed_at', 'task_count']);
    if ('error' in header) throw new Error(header.error);
    expect(csvRowToInput('throughput', header.columns, ['w', '', 'two'])).toEqual({
      body: { worker_id: 'w', task_count: 'two' },
      errors: [],
    });
  });

  it('reads a label column as text even when it looks like a number, and a count column as a number', () => {
    const header = csvColumns('quality', [
      ...REQUIRED_QUALITY_COLUMNS,
      'measurements.attribute_1_label',
      'measurements.attribute_1_count',
      'measurements.other',
    ]);
    if ('error' in header) throw new Error(header.error);
    const row = csvRowToInput('quality', header.columns, ['uc-1', 'td-1', 'w', '2024-05-01T00:00:00Z', '1', '42', '3', '7']);
    expect(row.body.review_measurements).toEqual({ attribute_1_label: '42', attribute_1_count: 3, other: 7 });
    expect(checkRecord('quality', { workstream_id: 'ws-1', ...row.body }, workstream)).toMatchObject({ ok: true });
    const wrong = csvRowToInput('quality', header.columns, ['uc-1', 'td-1', 'w', '2024-05-01T00:00:00Z', '1', 'car', 'three', 'x']);
    expect(checkRecord('quality', { workstream_id: 'ws-1', ...wrong.body }, workstream)).toEqual({
      ok: false,
      errors: [{ field: 'review_measurements.attribute_1_count', message: 'review_measurements.attribute_1_count must be a number' }],
    });
  });

  it('keeps a long measurement as text, so the text limit of map values names it', () => {
    const header = csvColumns('quality', [...REQUIRED_QUALITY_COLUMNS, 'measurements.size']);
    if ('error' in header) throw new Error(header.error);
    const row = csvRowToInput('quality', header.columns, ['uc-1', 'td-1', 'w', '2024-05-01T00:00:00Z', '1', '7'.repeat(60_000)]);
    expect(row.errors).toEqual([]);
    expect(checkRecord('quality', { workstream_id: 'ws-1', ...row.body }, workstream)).toEqual({
      ok: false,
      errors: [{ field: 'review_measurements.size', message: 'review_measurements.size must be at most 1000 characters' }],
    });
  });

  it('refuses unknown, repeated and missing required columns', () => {
    expect(csvColumns('throughput', ['worker_id', 'task_completed_at', 'errors.x'])).toEqual({
      error: "unknown CSV column(s): errors.x (columns are the record's field names, plus metadata.<key>)",
    });
    expect(csvColumns('throughput', ['worker_id'])).toEqual({ error: 'CSV header lacks required column(s): task_completed_at' });
  });
});
