import { adminCreate } from './http';

/** An account with a workstream (use case `uc`, task definition `td`, QC threshold 0.5, no sampling) and an API key of it. */
export async function newQualityWorkstream(name: string): Promise<{ ws: string; key: string }> {
  const account = await adminCreate<{ id: string }>('/accounts', { name });
  const ws = (
    await adminCreate<{ id: string }>('/workstreams', {
      account_id: account.id,
      name,
      use_cases: [{ id: 'uc', task_definition_ids: ['td'] }],
      qc_score_threshold: 0.5,
      qc_sample_rate: 0,
    })
  ).id;
  const key = (await adminCreate<{ key: string }>(`/workstreams/${ws}/api-keys`, {})).key;
  return { ws, key };
}

/** A task_reviewed body for newQualityWorkstream's use case and task definition. */
export const qualityReview = (ws: string, uniqueId: string, workerId: string, score: number, replace: boolean | undefined) => ({
  workstream_id: ws,
  use_case_id: 'uc',
  task_definition_id: 'td',
  unique_id: uniqueId,
  worker_id: workerId,
  review_completed_at: '2024-05-01T12:00:00Z',
  review_score: score,
  ...(replace === undefined ? {} : { replace_duplicate: replace }),
});
