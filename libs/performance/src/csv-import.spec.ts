import 'reflect-metadata';
import { copyText, copyValue, ImportBatch } from './csv-import';
import { TABLES } from './record-store';
import { RULES_WORKSTREAM as workstream } from './testing/workstreams';
import { QUALITY_TEST_COLUMNS, qualityTestCells } from './testing/csv-batches';

describe('COPY text format', () => {
  it('escapes backslash, line breaks and tab, and leaves the rest (COPY markers included) as text', () => {
    expect(copyText('plain, "quoted" ünïcode 😀')).toBe('plain, "quoted" ünïcode 😀');
    expect(copyText('a\\b\nc\rd\te')).toBe('a\\\\b\\nc\\rd\\te');
    expect(copyText('\\N')).toBe('\\\\N');
    expect(copyText('\\.')).toBe('\\\\.');
  });

  it('refuses a NUL, which PostgreSQL text cannot hold, with the message the jsonb batches gave', () => {
    expect(() => copyText('a\u0000b')).toThrow('unsupported Unicode escape sequence');
  });

  it('writes NULL as \\N, booleans as t/f, numbers as JavaScript prints them, maps as escaped JSON', () => {
    expect(copyValue(null, 'text')).toBe('\\N');
    expect(copyValue(true, 'boolean')).toBe('t');
    expect(copyValue(0.1, 'double precision')).toBe('0.1');
    expect(copyValue(1e21, 'double precision')).toBe('1e+21');
    expect(copyValue({ note: 'a\tb\\' }, 'jsonb')).toBe('{"note":"a\\\\tb\\\\\\\\"}');
  });
});

describe('ImportBatch', () => {
  const row = qualityTestCells;
  /** What the staging table receives, a line per key: its tab-separated cells. */
  const stagedCells = (batch: ImportBatch) =>
    [...batch.copyText('upl-1')]
      .join('')
      .split('\n')
      .filter(Boolean)
      .map((line) => line.split('\t'));

  it('collapses the repeats of a key as if the rows came one after the other, and keeps refused rows apart', () => {
    const batch = new ImportBatch('quality', workstream);
    batch.add(2, QUALITY_TEST_COLUMNS, row('a', ''));
    batch.add(3, QUALITY_TEST_COLUMNS, row('a', 'false', '0.1'));
    batch.add(4, QUALITY_TEST_COLUMNS, row('a', 'true', '0.2'));
    batch.add(5, QUALITY_TEST_COLUMNS, row('b', 'false'));
    batch.add(6, QUALITY_TEST_COLUMNS, row('b', 'false'));
    batch.add(7, QUALITY_TEST_COLUMNS, row('', ''));
    batch.add(8, QUALITY_TEST_COLUMNS, row('', ''));
    batch.add(9, QUALITY_TEST_COLUMNS, row('c', '', '7'));
    batch.add(10, QUALITY_TEST_COLUMNS, ['too', 'few']);
    expect(batch.size).toBe(9);
    // What the staging table receives, a row per key: seq, replace, qc, id, workstream_id, the columns, upload_id.
    const names = ['seq', 'replace', 'qc', 'id', 'workstream_id', ...TABLES.quality.columns.map(([name]) => name), 'upload_id'];
    const staged = stagedCells(batch).map((cells) => Object.fromEntries(cells.map((value, i) => [names[i], value])));
    expect(staged.map((r) => [r.seq, r.replace, r.qc, r.unique_id, r.review_score, r.upload_id])).toEqual([
      ['0', 't', 't', 'a', '0.2', 'upl-1'],
      ['1', 'f', 'f', 'b', '0.9', 'upl-1'],
      ['2', 't', 'f', '\\N', '0.9', 'upl-1'],
      ['3', 't', 'f', '\\N', '0.9', 'upl-1'],
    ]);
    expect(staged.map((r) => r.id)).toEqual(batch.groups.map((g) => g.id));
    expect(batch.groups.map((g) => [g.first, g.replacers, g.firstReplaces])).toEqual([
      [0, [2], true],
      [3, [], false],
      [5, [], true],
      [6, [], true],
    ]);
    expect(batch.rejections.map((r) => r.row)).toEqual([9, 10]);
    expect(batch.mayCauseEvents).toBe(true);
  });

  it("sends the rows in the order the upsert sorts them: the key's index order (unique_id first), rows without a unique_id last", () => {
    const batch = new ImportBatch('quality', workstream);
    batch.add(2, QUALITY_TEST_COLUMNS, row('z', 'false'));
    batch.add(3, QUALITY_TEST_COLUMNS, row('', 'false'));
    batch.add(4, QUALITY_TEST_COLUMNS, row('a', 'false'));
    batch.add(5, QUALITY_TEST_COLUMNS, row('m', 'false'));
    const staged = stagedCells(batch).map(([seq]) => seq);
    expect(staged).toEqual(['2', '3', '0', '1']);
  });
});
