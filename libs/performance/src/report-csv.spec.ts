import type { QualityReportGroup } from '@workline/contracts';
import { csvCell, reportCsv } from './report-csv';

describe('report CSV cells', () => {
  it.each([
    ['=HYPERLINK("http://x","y")', `"'=HYPERLINK(""http://x"",""y"")"`],
    ['+1+2', `"'+1+2"`],
    ['-2+3', `"'-2+3"`],
    ['@SUM(A1:A2)', `"'@SUM(A1:A2)"`],
    ['\t=1', `"'\t=1"`],
    ['\r=1', `"'\r=1"`],
    ['-5', `"'-5"`],
  ])('neutralises the text cell %j as %j (single quote, quoted)', (text, cell) => expect(csvCell(text)).toBe(cell));

  it.each([
    ['ann@example.com', 'ann@example.com'],
    ['a=b', 'a=b'],
    ['two, words', '"two, words"'],
    ['say "hi"', '"say ""hi"""'],
    ['', ''],
  ])('leaves other text as RFC 4180 has it: %j as %j', (text, cell) => expect(csvCell(text)).toBe(cell));

  it('writes numbers the service computed as numbers, negative ones included, and null as an empty cell', () => {
    expect([csvCell(-1.5), csvCell(0), csvCell(0.25), csvCell(null)]).toEqual(['-1.5', '0', '0.25', '']);
  });

  it('neutralises a client worker_id in the first column of a grouped report, and error type names in the header', () => {
    const groups: QualityReportGroup[] = [
      {
        key: '=HYPERLINK("http://x","y")',
        count: 1,
        mean_score: 0.5,
        p50_score: 0.5,
        p90_score: 0.5,
        min_score: 0.5,
        max_score: 0.5,
        errors: { '-x': 2 },
      },
    ];
    const csv = reportCsv('quality', { workstream_id: 'ws', kind: 'quality', from: null, to: null, group_by: 'worker', groups });
    expect(csv.split('\r\n')).toEqual([
      'worker,count,mean_score,p50_score,p90_score,min_score,max_score,errors.-x',
      `"'=HYPERLINK(""http://x"",""y"")",1,0.5,0.5,0.5,0.5,0.5,2`,
      '',
    ]);
  });
});
