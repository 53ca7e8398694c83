import { parse } from 'csv-parse';
import { Readable } from 'node:stream';
import { CSV_NUMBER_MAX_CHARS, CSV_PARSE_OPTIONS, csvColumns, csvRowToInput, isDecimalNumber, recordLines } from './csv-rows';

/** The pattern isDecimalNumber replaced: the same language, quadratic on long digit runs (kept to check the language). */
const FORMER_NUMBER_PATTERN = /^[-+]?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

/** A string-like value that counts how many characters are read from it. */
function counted(text: string): { value: Pick<string, 'length' | 'charCodeAt'>; reads: () => number } {
  let reads = 0;
  return {
    value: {
      length: text.length,
      charCodeAt: (index: number) => {
        reads++;
        return text.charCodeAt(index);
      },
    },
    reads: () => reads,
  };
}

const QUALITY_HEADER = ['use_case_id', 'task_definition_id', 'worker_id', 'review_completed_at', 'review_score', 'errors.missing_box'];
const columnsOf = (header: string[]) => {
  const result = csvColumns('quality', header);
  if ('error' in result) throw new Error(result.error);
  return result.columns;
};

describe('isDecimalNumber', () => {
  const cases = [
    '0',
    '3',
    '0.75',
    '-1',
    '+2',
    '.5',
    '5.',
    '-.5',
    '1e-2',
    '1E+10',
    '2.5e3',
    '007',
    '1e400',
    '',
    '.',
    '-',
    '+.',
    'e5',
    '1e',
    '1e+',
    '1.2.3',
    '1,5',
    '0x10',
    ' 1',
    '1 ',
    '--1',
    '1e5.5',
    'Infinity',
    'NaN',
    '١',
  ];

  it.each(cases)('accepts %j exactly when the former pattern did', (text) => {
    expect(isDecimalNumber(text)).toBe(FORMER_NUMBER_PATTERN.test(text));
  });

  it.each([
    ['60,000 digits, then a letter', `${'1'.repeat(60_000)}x`, false],
    ['60,000 digits', '1'.repeat(60_000), true],
    ['a long decimal with an exponent lacking digits', `-${'9'.repeat(30_000)}.${'9'.repeat(30_000)}e`, false],
    ['a long fraction with an exponent', `.${'5'.repeat(60_000)}e+12`, true],
  ])('reads each character at most once, so its time is linear by construction: %s', (_what, text, accepted) => {
    const probe = counted(text);
    expect(isDecimalNumber(probe.value)).toBe(accepted);
    expect(probe.reads()).toBeLessThanOrEqual(text.length);
  });
});

describe('CSV number cells', () => {
  it(`refuses a 60 KB cell of digits in a number column, naming the column and the limit of ${CSV_NUMBER_MAX_CHARS} characters`, () => {
    const digits = `${'1'.repeat(60_000)}x`;
    const row = csvRowToInput('quality', columnsOf(QUALITY_HEADER), [
      'uc-1',
      'td-1',
      'w',
      '2024-05-01T00:00:00Z',
      digits,
      '1'.repeat(60_000),
    ]);
    expect(row.errors).toEqual([
      { field: 'review_score', message: `review_score must be a number of at most ${CSV_NUMBER_MAX_CHARS} characters` },
      { field: 'errors.missing_box', message: `errors.missing_box must be a number of at most ${CSV_NUMBER_MAX_CHARS} characters` },
    ]);
    expect(row.body).toEqual({
      use_case_id: 'uc-1',
      task_definition_id: 'td-1',
      worker_id: 'w',
      review_completed_at: '2024-05-01T00:00:00Z',
      errors: {},
    });
  });

  it(`reads a number of exactly ${CSV_NUMBER_MAX_CHARS} characters (spaces around it not counted)`, () => {
    const score = `  0.${'0'.repeat(CSV_NUMBER_MAX_CHARS - 3)}1 `;
    const row = csvRowToInput('quality', columnsOf(QUALITY_HEADER), ['uc-1', 'td-1', 'w', '2024-05-01T00:00:00Z', score, '2']);
    expect(row).toEqual({
      body: {
        use_case_id: 'uc-1',
        task_definition_id: 'td-1',
        worker_id: 'w',
        review_completed_at: '2024-05-01T00:00:00Z',
        review_score: 1e-62,
        errors: { missing_box: 2 },
      },
      errors: [],
    });
  });
});

describe('recordLines', () => {
  /** Each record's line as the `info` option tells it, and as recordLines does, for the same text. */
  async function bothWays(text: string): Promise<[number[], number[]]> {
    const withInfo: number[] = [];
    for await (const { info } of Readable.from([text]).pipe(parse({ ...CSV_PARSE_OPTIONS, info: true }))) withInfo.push(info.lines);
    const parser = Readable.from([text]).pipe(parse(CSV_PARSE_OPTIONS));
    const lineOfNextRecord = recordLines(parser);
    const counted: number[] = [];
    for await (const _record of parser) counted.push(lineOfNextRecord());
    return [withInfo, counted];
  }

  it("tells each record's line as the info option does: quoted line breaks, blank lines, CRLF, short rows", async () => {
    const text = '\ufeffa,b\r\n1,"two\nlines"\r\n\r\n\r\n3,4\r\n"x\n\ny",\r\nonly one\r\n5,6';
    const [withInfo, counted] = await bothWays(text);
    expect(withInfo).toEqual([1, 3, 6, 9, 10, 11]);
    expect(counted).toEqual(withInfo);
  });

  it('keeps counting across its queue trims, for a file longer than one trim', async () => {
    const rows = Array.from({ length: 10_000 }, (_, i) => (i % 7 === 0 ? `"${i}\n",x` : `${i},y`));
    const [withInfo, counted] = await bothWays(['h1,h2', ...rows].join('\n'));
    expect(withInfo).toHaveLength(10_001);
    expect(counted).toEqual(withInfo);
  });
});
