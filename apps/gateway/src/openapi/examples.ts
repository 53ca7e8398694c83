import type { ContractClass } from '@workline/contracts';
import { type Content, ref } from './api-docs';

/** Examples shown in the API description (docs/performance-api.md has every field and rule). */
export const QUALITY_EXAMPLE = {
  workstream_id: 'the workstream of the path',
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  unique_id: 'review-0001',
  worker_id: 'ann@example.com',
  review_completed_at: '2024-05-01T12:00:00Z',
  review_score: 0.9,
  errors: { missing_box: 1 },
};

export const THROUGHPUT_EXAMPLE = {
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  task_id: 'task-0001',
  worker_id: 'bob@example.com',
  task_completed_at: '2024-05-01T12:00:00Z',
  duration_seconds: 95,
};

/** A report answers JSON, or its CSV download with format=csv. */
export const reportContent = (cls: ContractClass): Content => ({ 'application/json': ref(cls), 'text/csv': { type: 'string' } });
