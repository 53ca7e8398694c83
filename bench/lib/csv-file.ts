/** The quality CSV the import benchmarks read: ten columns, repeating worker ids, a third of the scores under 0.33. */
export const CSV_HEADER =
  'use_case_id,task_definition_id,unique_id,worker_id,review_completed_at,review_score,review_type,' +
  'errors.missing_box,errors.wrong_label,metadata.shift';

/** `rows` rows after the header, in chunks of about 256 KB. */
export function* csvRows(rows: number): Generator<string> {
  yield `${CSV_HEADER}\n`;
  let chunk = '';
  for (let i = 1; i <= rows; i++) {
    chunk +=
      `uc-1,td-${(i % 2) + 1},row-${i},worker-${i % 500}@example.com,` +
      `2024-05-${String((i % 28) + 1).padStart(2, '0')}T${String(i % 24).padStart(2, '0')}:00:00Z,` +
      `${((i * 7919) % 1001) / 1000},QA,${i % 3},${i % 5},day\n`;
    if (chunk.length >= 256 * 1024) {
      yield chunk;
      chunk = '';
    }
  }
  yield chunk;
}
