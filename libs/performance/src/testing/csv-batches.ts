import { csvColumns } from '../csv-rows';

/** The header of a small quality CSV for tests of import batches, as the import reads it. */
const header = csvColumns('quality', [
  'use_case_id',
  'task_definition_id',
  'unique_id',
  'replace_duplicate',
  'worker_id',
  'review_completed_at',
  'review_score',
]);
if ('error' in header) throw new Error(header.error);
export const QUALITY_TEST_COLUMNS = header.columns;

/** The cells of one row under QUALITY_TEST_COLUMNS: its unique_id, replace_duplicate and score, the rest fixed. */
export const qualityTestCells = (uniqueId: string, replace: string, score = '0.9', useCase = { id: 'uc-1', taskDefinition: 'td-1' }) => [
  useCase.id,
  useCase.taskDefinition,
  uniqueId,
  replace,
  'w',
  '2024-05-01T00:00:00Z',
  score,
];
