import { isDeepStrictEqual } from 'node:util';

/** A record's fields as one write sent them (without workstream_id and replace_duplicate). */
export type RecordValues = Record<string, unknown>;

/** One accepted write of a record: a 202 of task_reviewed / task_completed, or a CSV row of a completed import. */
export interface KeyedWrite {
  values: RecordValues;
  /** replace_duplicate (true when not sent). */
  replace: boolean;
  /** Attempts its client made (a CSV row: 1; an import reads each row once whatever a crash interrupted). */
  attempts: number;
  /** The CSV upload it came from; null for an API call. */
  uploadId: string | null;
  /** The 202's message (an API call). */
  answer?: string;
}

/** What a write did by the rules (docs/performance-api.md, "Duplicates"). */
export type WriteEffect = 'stored' | 'replaced' | 'ignored';

/** The 202 message of each effect, as the API words it. */
const ANSWER_OF: Record<WriteEffect, string> = {
  stored: 'Record stored',
  replaced: 'Existing record replaced',
  ignored: 'Duplicate ignored',
};

/** A write with its place among the writes of its record. */
export interface PlacedWrite extends KeyedWrite {
  key: string;
  effect: WriteEffect;
}

/**
 * The accepted writes of a workstream's keyed records, per record key, in the order they were made (the
 * clients send the writes of one key one after the other), and what the spec's rules make of them: the first
 * write stores the record; a later one replaces every attribute (fields it did not send become empty) when its
 * replace_duplicate is true or absent, and is ignored when it is false. A record without a unique_id is keyed by
 * its (unique) review explanation: each is a record of its own.
 */
export class KeyedRecords {
  private readonly writes = new Map<string, KeyedWrite[]>();

  record(key: string, write: KeyedWrite): void {
    this.writes.set(key, [...(this.writes.get(key) ?? []), write]);
  }

  has(key: string): boolean {
    return this.writes.has(key);
  }

  get keys(): string[] {
    return [...this.writes.keys()];
  }

  /** Every write with its effect, key by key. */
  placed(): PlacedWrite[] {
    return [...this.writes].flatMap(([key, writes]) =>
      writes.map((write, i) => ({ ...write, key, effect: i === 0 ? 'stored' : write.replace ? 'replaced' : ('ignored' as WriteEffect) })),
    );
  }

  /** The first accepted write of `key`. */
  first(key: string): KeyedWrite | undefined {
    return this.writes.get(key)?.[0];
  }

  /** Per key, the write whose values the rules leave stored: the first, replaced by each later one with replace_duplicate true. */
  expectedAll(): Map<string, PlacedWrite> {
    const last = new Map<string, PlacedWrite>();
    for (const write of this.placed()) if (write.effect !== 'ignored') last.set(write.key, write);
    return last;
  }

  /**
   * API writes whose 202 message is not the one the rules give: a first write "Record stored" (or, when the
   * client retried, what its retry met: the record its first attempt stored); a later one "Existing record
   * replaced" or "Duplicate ignored" by its replace_duplicate.
   */
  answersAgainstRules(): { key: string; effect: WriteEffect; answer?: string }[] {
    return this.placed()
      .filter((w) => {
        if (w.answer === undefined) return false;
        const allowed: WriteEffect[] = [
          w.effect === 'stored' && w.attempts > 1 ? (w.replace ? 'replaced' : 'ignored') : w.effect,
          w.effect,
        ];
        return !allowed.some((effect) => w.answer!.startsWith(ANSWER_OF[effect]));
      })
      .map(({ key, effect, answer }) => ({ key, effect, answer }));
  }
}

/**
 * Stored rows against the rules: each key stored once, no row the writes do not explain, and each row's
 * fields equal to those of the write the rules leave (a field that write did not send is null), plus
 * `derived` ones (e.g. a throughput record's duration). `asStored` turns a row's values into the JSON
 * types the writes carry (dates to ISO strings).
 */
export function storedAgainstRules(
  records: KeyedRecords,
  rows: Record<string, unknown>[],
  options: {
    keyOf: (row: Record<string, unknown>) => string;
    fields: readonly string[];
    asStored: (row: Record<string, unknown>) => Record<string, unknown>;
    derived?: (values: RecordValues) => RecordValues;
  },
): { storedNotOnce: string[]; unexplained: string[]; mismatched: { key: string; differing: string[] }[] } {
  const expected = records.expectedAll();
  const stored = new Map<string, number>();
  for (const row of rows) stored.set(options.keyOf(row), (stored.get(options.keyOf(row)) ?? 0) + 1);
  const mismatched = rows.flatMap((row) => {
    const key = options.keyOf(row);
    const write = expected.get(key);
    if (!write) return [];
    const want: Record<string, unknown> = { ...options.derived?.(write.values), upload_id: write.uploadId };
    for (const field of options.fields) want[field] ??= write.values[field] ?? null;
    const got = options.asStored(row);
    const differing = Object.keys(want).filter((field) => !isDeepStrictEqual(got[field], want[field]));
    return differing.length ? [{ key, differing }] : [];
  });
  return {
    storedNotOnce: [...expected.keys()].filter((key) => stored.get(key) !== 1),
    unexplained: [...stored.keys()].filter((key) => !expected.has(key)),
    mismatched,
  };
}
