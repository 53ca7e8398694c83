import type { Sql, Statement } from '@workline/db';
import { BATCH_ROW_MAX_CHARS } from './outbox-batch-rows';
import { enqueueEventBatchJson } from './outbox-writer';

describe('enqueueEventBatchJson', () => {
  it(
    'writes the rows of a batch sixteen to a statement, in order, ' + 'each under BATCH_ROW_MAX_CHARS, with the shared fields once',
    async () => {
      const calls: { name: string; text: string; values: unknown[] }[] = [];
      const sql = { query: async (s: Statement, values: unknown[] = []) => (calls.push({ ...s, values }), []) } as unknown as Sql;
      // Each event about a third of a row: three to a row, so 60 events make 20 rows.
      const data = Array.from({ length: 60 }, (_, n) => JSON.stringify({ n, pad: 'x'.repeat(Math.floor(BATCH_ROW_MAX_CHARS / 3) - 200) }));
      const ids = await enqueueEventBatchJson(sql, 'test', 'workline.test.v1', data, { key: 'k', headers: { h: 'v' } });
      expect(calls.map((call) => call.name)).toEqual(['outbox_insert_batch_16', 'outbox_insert_batch_4']);
      expect(calls[1].text).toMatch(
        /values \(\$5, \$1, \$2, \$3, \$4::jsonb, \$6, \$7\), .*\(\$14, \$1, \$2, \$3, \$4::jsonb, \$15, \$16\)$/,
      );
      const rows = calls.flatMap((call) => {
        expect(call.values.slice(0, 4)).toEqual(['test', 'workline.test.v1', 'k', '{"h":"v"}']);
        const rest = call.values.slice(4);
        return Array.from({ length: rest.length / 3 }, (_, row) => ({ events: rest[3 * row + 1] as string, count: rest[3 * row + 2] }));
      });
      expect(rows.map((row) => row.count)).toEqual(Array(20).fill(3));
      expect(rows.every((row) => row.events.length <= BATCH_ROW_MAX_CHARS)).toBe(true);
      const lines = rows.flatMap((row) => row.events.split('\n'));
      expect(lines.map((line) => line.split('\t')[0])).toEqual(ids);
      expect(lines.map((line) => (JSON.parse(line.split('\t')[2]) as { data: { n: number } }).data.n)).toEqual(data.map((_, n) => n));
    },
  );

  it('refuses data that is not compact JSON (a raw line break or tab would cut its line), writing nothing', async () => {
    const query = jest.fn();
    const sql = { query } as unknown as Sql;
    const pretty = JSON.stringify({ a: 1 }, null, 2);
    await expect(enqueueEventBatchJson(sql, 'test', 'workline.test.v1', ['{"a":1}', pretty], { key: 'k' })).rejects.toThrow(
      'event 1 of the batch is not compact JSON: it holds a raw line break or tab',
    );
    // A tab escaped inside a string is compact JSON; a tab as whitespace between tokens is not.
    const escapedTab = JSON.stringify({ a: 'x\ty' });
    const rawTab = '{"b":' + String.fromCharCode(9) + '1}';
    await expect(enqueueEventBatchJson(sql, 'test', 'workline.test.v1', [escapedTab, rawTab], { key: 'k' })).rejects.toThrow('event 1');
    expect(query).not.toHaveBeenCalled();
  });
});
