import type { DbPool, Sql, Statement } from '@workline/db';
import {
  BATCH_ROW_MAX_CHARS,
  batchRowsOf,
  compactJsonbText,
  compactPayload,
  enqueueEventBatchJson,
  OutboxRelay,
  type OutboxRow,
  RELAY_READ,
} from './outbox';
import type { KafkaProducer } from './producer';

describe('compactJsonbText', () => {
  // PostgreSQL's text output of jsonb values (select '…'::jsonb::text), as the relay reads payloads.
  const samples = [
    '{"id": "6f1c", "data": {"n": 1, "pad": "m m, m: m"}, "type": "workline.test.v1", "occurred_at": "2026-11-23T20:00:00.000Z"}',
    '{"a": [1, 2.5, -3e-7, true, false, null, {"b": []}, {}], "quote": "say \\"hi\\", then: go", "slash": "a\\\\", "tab": "x\\ty\\nz"}',
    '{"unicode": "été 🚀 \\u0001", "nested": {"deeper": {"list": [" lead", "trail ", "  "]}}}',
    '[]',
    '"a string: with, separators"',
    '12.5',
  ];

  it.each(samples)('gives what JSON.stringify makes of the parsed value: %s', (text) => {
    expect(compactJsonbText(text)).toBe(JSON.stringify(JSON.parse(text)));
  });

  it('returns a text without whitespace outside strings as it is', () => {
    const text = '{"a":"b c"}';
    expect(compactJsonbText(text)).toBe(text);
  });
});

describe('compactPayload', () => {
  it('sends a payload written as JSON.stringify wrote it unchanged, even with separators inside its strings', () => {
    const text = JSON.stringify({ id: 'e1', data: { note: 'a "quote": here, and, there', list: [1, 2] } });
    expect(compactPayload(text)).toBe(text);
  });

  it("compacts a payload in jsonb's text form (a submission's QC event, a row written before json)", () => {
    const text = '{"id": "e1", "data": {"note": "a \\"quote\\": here", "list": [1, 2]}}';
    expect(compactPayload(text)).toBe(JSON.stringify(JSON.parse(text)));
  });
});

describe('OutboxRelay', () => {
  /** Resolves once `done` holds, checking every few ms (a relay that never gets there fails on the test's timeout). */
  const until = async (done: () => boolean) => {
    while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
  };

  /**
   * A relay over a pool whose reads wait until the test answers them (`reads`), so a poke or a shutdown can
   * land while one is under way; its poll is far longer than a test's timeout, so only they can move it.
   */
  const heldRelay = () => {
    const reads: ((rows: OutboxRow[]) => void)[] = [];
    const sql = {
      query: (statement: Statement) =>
        statement === RELAY_READ ? new Promise<OutboxRow[]>((resolve) => reads.push(resolve)) : Promise.resolve([]),
    } as unknown as Sql;
    const db = { transaction: (work: (sql: Sql) => Promise<unknown>) => work(sql), query: sql.query } as unknown as DbPool;
    const producer = { send: () => Promise.resolve() } as unknown as KafkaProducer;
    const relay = new OutboxRelay(db, producer, { source: 'test', pollMs: 600_000 });
    relay.onApplicationBootstrap();
    /** Stops the relay, answering every read (its final flush reads too) with no rows. */
    const stop = async () => {
      let answered = 0;
      const answering = setInterval(() => {
        while (answered < reads.length) reads[answered++]([]);
      }, 1);
      await relay.beforeApplicationShutdown();
      clearInterval(answering);
    };
    return { relay, reads, stop };
  };

  it('reads again at once when poked while a batch was being read, instead of waiting for its next poll', async () => {
    const { relay, reads, stop } = heldRelay();
    try {
      await until(() => reads.length === 1);
      relay.poke(); // an event committed after the read began
      reads[0]([]);
      await until(() => reads.length === 2);
      expect(reads).toHaveLength(2);
    } finally {
      await stop();
    }
  });

  it('stops without waiting out its poll when asked to during a batch', async () => {
    const { reads, stop } = heldRelay();
    await until(() => reads.length === 1);
    await stop();
    // The final flush read once more and found nothing.
    expect(reads).toHaveLength(2);
  });
});

describe('batchRowsOf: the lines of an event batch cut into rows of bounded size', () => {
  it('keeps a batch that fits in one row', () => {
    expect(batchRowsOf(['aa', 'bb', 'cc'], 8)).toEqual([['aa', 'bb', 'cc']]);
  });

  it('starts a new row where the next line (and its separator) would pass the limit, in order', () => {
    expect(batchRowsOf(['aaa', 'bbb', 'ccc', 'd'], 7)).toEqual([
      ['aaa', 'bbb'],
      ['ccc', 'd'],
    ]);
  });

  it('gives a line longer than the limit a row of its own', () => {
    expect(batchRowsOf(['a', 'x'.repeat(20), 'b'], 5)).toEqual([['a'], ['x'.repeat(20)], ['b']]);
  });

  it('makes no row of no lines', () => {
    expect(batchRowsOf([], 5)).toEqual([]);
  });
});

describe('enqueueEventBatchJson', () => {
  it('writes the rows of a batch sixteen to a statement, in order, each under BATCH_ROW_MAX_CHARS, with the shared fields once', async () => {
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
  });

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
