/**
 * A valid task_reviewed record of use case uc-1 and task definition td-1, with `overrides` on top: the sample
 * the suites and the benchmarks send. A module without imports, so that bench/, which runs outside Jest (where
 * the rest of libs/testing cannot load), imports it too.
 */
export const qualityRecord = <T extends object = object>(workstreamId: string, overrides?: T) => ({
  workstream_id: workstreamId,
  use_case_id: 'uc-1',
  task_definition_id: 'td-1',
  worker_id: 'ann@example.com',
  review_completed_at: '2024-05-01T12:00:00Z',
  review_score: 0.9,
  ...(overrides as T),
});
